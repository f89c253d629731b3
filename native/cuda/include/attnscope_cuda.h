/*
 * C ABI of libattnscope_cuda.so, the optional GPU backend of AttnScope.
 *
 * The CPU addon never links CUDA: it dlopen()s this library at run time, checks
 * attnscope_cuda_abi_version() == ATTNSCOPE_CUDA_ABI_VERSION and resolves the functions below
 * by name. Python (test/gpu/) calls the same functions through ctypes with torch's device
 * pointers. Plain C: no CUDA types cross this boundary (streams are void*).
 *
 * Every function returns an attnscope_cuda_status (0 = ok) and never throws; after a failure,
 * attnscope_cuda_last_error() gives a message naming the failing call (per thread).
 *
 * Layouts (row-major, the CPU kernels' layouts, see DESIGN.md "Kernels"):
 *   Q, K, V, O       [B, N, H, D] ("NHD"); K and V have H_kv heads
 *   lse              [B, H, N_q] fp32, natural log; -inf for a fully masked row (its O row is 0)
 *   K/V page pools   [num_pages, page_size, H_kv, D]
 *   block table      int32 [B, max_pages_per_seq]; context_lens int32 [B]
 * Bump ATTNSCOPE_CUDA_ABI_VERSION whenever a struct or signature here changes.
 */
#ifndef ATTNSCOPE_CUDA_H_
#define ATTNSCOPE_CUDA_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTNSCOPE_CUDA_ABI_VERSION 1

#if defined(_WIN32)
#define ATTNSCOPE_CUDA_API __declspec(dllexport)
#else
#define ATTNSCOPE_CUDA_API __attribute__((visibility("default")))
#endif

typedef enum attnscope_cuda_status {
  ATTNSCOPE_CUDA_OK = 0,
  ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT = 1, /* a size, pointer or flag is out of range */
  ATTNSCOPE_CUDA_ERR_UNSUPPORTED = 2,      /* e.g. a head_dim with no compiled kernel */
  ATTNSCOPE_CUDA_ERR_NO_DEVICE = 3,        /* no CUDA device, or the driver is missing/too old */
  ATTNSCOPE_CUDA_ERR_OUT_OF_MEMORY = 4,    /* cudaMalloc failed */
  ATTNSCOPE_CUDA_ERR_CUDA = 5              /* any other CUDA runtime error (see last_error) */
} attnscope_cuda_status;

typedef enum attnscope_cuda_dtype {
  ATTNSCOPE_CUDA_FP16 = 0,
  ATTNSCOPE_CUDA_BF16 = 1
} attnscope_cuda_dtype;

/* What the memory budget and the roofline need to know about one device. */
typedef struct attnscope_cuda_device_info {
  char name[256];
  int compute_capability_major;
  int compute_capability_minor;
  int multiprocessor_count;
  int sm_clock_khz;              /* peak SM clock */
  int memory_clock_khz;          /* peak memory clock */
  int memory_bus_width_bits;
  int l2_cache_bytes;
  int max_shared_memory_per_block_optin; /* bytes */
  int driver_version;            /* e.g. 13000 for CUDA 13.0 */
  int runtime_version;           /* the runtime this library was built with */
  uint64_t total_memory_bytes;
  uint64_t free_memory_bytes;    /* at the time of the call */
} attnscope_cuda_device_info;

/*
 * FlashAttention-2 forward. All pointers are device pointers.
 * Each query row i of N_q sees keys j with
 *   j <= i + N_k - N_q                 when causal (aligned bottom-right), and
 *   j >= i + N_k - N_q - window_left   when window_left >= 0 (sliding window).
 */
typedef struct attnscope_cuda_flash_params {
  const void* q;   /* [B, N_q, H, D] in dtype */
  const void* k;   /* [B, N_k, H_kv, D] in dtype */
  const void* v;   /* [B, N_k, H_kv, D] in dtype */
  void* o;         /* [B, N_q, H, D] in dtype, written */
  float* lse;      /* [B, H, N_q] fp32, written; may be NULL */
  int batch;      /* B >= 1 */
  int seq_len_q;       /* N_q >= 1 */
  int seq_len_k;       /* N_k >= 1 */
  int num_heads;       /* H >= 1 */
  int num_kv_heads;    /* H_kv >= 1, divides H */
  int head_dim;        /* D: 64 or 128 */
  int causal;          /* 0 or 1 */
  int window_left;     /* -1 = no window */
  float softmax_scale; /* finite, > 0; usually 1/sqrt(D) */
  int dtype;           /* attnscope_cuda_dtype of q, k, v, o */
} attnscope_cuda_flash_params;

/*
 * PagedAttention decode: one query token per sequence over its block table; the context is
 * split into partitions whose partial outputs are merged through their lse (FlashDecoding).
 * All pointers are device pointers.
 */
typedef struct attnscope_cuda_decode_params {
  const void* q;            /* [B, H, D] in dtype */
  const void* k_pool;       /* [num_pages, page_size, H_kv, D] in dtype */
  const void* v_pool;       /* [num_pages, page_size, H_kv, D] in dtype */
  const int32_t* block_table;  /* [B, max_pages_per_seq]: logical page -> physical page */
  const int32_t* context_lens; /* [B]: tokens of each sequence, <= max_pages_per_seq * page_size */
  void* o;                  /* [B, H, D] in dtype, written */
  float* lse;               /* [B, H] fp32, written; may be NULL */
  void* workspace;          /* attnscope_cuda_decode_workspace_bytes() bytes; NULL when that is 0 */
  int batch;           /* B >= 1 */
  int num_heads;            /* H */
  int num_kv_heads;         /* H_kv, divides H */
  int head_dim;             /* D: 64 or 128 */
  int page_size;            /* token slots per page, in core/kernelLimits.json's [cuda.minPageSize, cuda.maxPageSize] (8..256) */
  int num_pages;            /* pages in each pool (for bounds of the block table) */
  int max_pages_per_seq;    /* columns of the block table */
  int max_context_len;      /* >= every context_lens[b]; sizes the split-K partitions */
  int partition_tokens;     /* tokens per split-K partition; 0 = choose from the device's SM count */
  float softmax_scale;
  int dtype;                /* attnscope_cuda_dtype of q, pools and o */
} attnscope_cuda_decode_params;

ATTNSCOPE_CUDA_API int attnscope_cuda_abi_version(void);
/* A message for the last failure on this thread ("" if none). Valid until the next call. */
ATTNSCOPE_CUDA_API const char* attnscope_cuda_last_error(void);

ATTNSCOPE_CUDA_API int attnscope_cuda_get_device_count(int* count);
ATTNSCOPE_CUDA_API int attnscope_cuda_get_device_info(int device, attnscope_cuda_device_info* info);
ATTNSCOPE_CUDA_API int attnscope_cuda_set_device(int device);

/* Launches on `stream` (a cudaStream_t; NULL = default stream); does not synchronize. */
ATTNSCOPE_CUDA_API int attnscope_cuda_flash_fwd(const attnscope_cuda_flash_params* p, void* stream);

/* Bytes of fp32 workspace decode needs for the partial outputs and lse of its partitions. */
ATTNSCOPE_CUDA_API int attnscope_cuda_decode_workspace_bytes(const attnscope_cuda_decode_params* p, size_t* bytes);
/* Launches on `stream`; does not synchronize. partition_tokens == 0 is resolved as documented. */
ATTNSCOPE_CUDA_API int attnscope_cuda_paged_decode(const attnscope_cuda_decode_params* p, void* stream);
/* The partitions per sequence and tokens per partition decode uses for these params. */
ATTNSCOPE_CUDA_API int attnscope_cuda_decode_plan(const attnscope_cuda_decode_params* p, int* num_splits,
                                                  int* partition_tokens);

/*
 * Timing with CUDA events on the default stream (the CPU kernels' loop, in device time):
 * `warmup` untimed launches, then timed launches, each bracketed by its own pair of events,
 * until at least min_reps ran AND their device time reached min_time_ms, stopping at max_reps
 * launches or max_time_ms of device time (at least one timed launch).
 */
typedef struct attnscope_cuda_timing {
  int warmup;
  int min_reps;
  int max_reps;
  double min_time_ms;
  double max_time_ms;
} attnscope_cuda_timing;

/* samples_ms has room for timing->max_reps values; *num_samples receives how many were written. */
ATTNSCOPE_CUDA_API int attnscope_cuda_time_flash_fwd(const attnscope_cuda_flash_params* p,
                                                     const attnscope_cuda_timing* timing, float* samples_ms,
                                                     int* num_samples);
ATTNSCOPE_CUDA_API int attnscope_cuda_time_paged_decode(const attnscope_cuda_decode_params* p,
                                                        const attnscope_cuda_timing* timing, float* samples_ms,
                                                        int* num_samples);

/*
 * Host-memory entry points for the addon, which links no CUDA: fp16/bf16 inputs as 16-bit
 * patterns in host memory are uploaded, the kernel runs once (or, when timing is not NULL, is
 * timed as above and the last launch's output kept), O comes back widened to fp32 and lse as
 * fp32. Device pointers in *p are ignored; the pointers below are host pointers of the same
 * shapes. The decode entry checks the block table against num_pages before any launch.
 */
typedef struct attnscope_cuda_flash_host_io {
  const uint16_t* q;
  const uint16_t* k;
  const uint16_t* v;
  float* o;    /* written, fp32 [B, N_q, H, D] */
  float* lse;  /* written; may be NULL */
} attnscope_cuda_flash_host_io;

typedef struct attnscope_cuda_decode_host_io {
  const uint16_t* q;
  const uint16_t* k_pool;
  const uint16_t* v_pool;
  const int32_t* block_table;
  const int32_t* context_lens;
  float* o;    /* written, fp32 [B, H, D] */
  float* lse;  /* written; may be NULL */
} attnscope_cuda_decode_host_io;

ATTNSCOPE_CUDA_API int attnscope_cuda_flash_fwd_host(const attnscope_cuda_flash_params* p,
                                                     const attnscope_cuda_flash_host_io* io,
                                                     const attnscope_cuda_timing* timing, float* samples_ms,
                                                     int* num_samples);
ATTNSCOPE_CUDA_API int attnscope_cuda_paged_decode_host(const attnscope_cuda_decode_params* p,
                                                        const attnscope_cuda_decode_host_io* io,
                                                        const attnscope_cuda_timing* timing, float* samples_ms,
                                                        int* num_samples);

/*
 * Device-to-device copy of `bytes` (cudaMemcpyAsync), the ceiling decode is judged against,
 * timed as above; bandwidth = 2 * bytes / time (each byte is read once and written once).
 */
ATTNSCOPE_CUDA_API int attnscope_cuda_time_copy(size_t bytes, const attnscope_cuda_timing* timing, float* samples_ms,
                                                int* num_samples);

#ifdef __cplusplus
}
#endif

#endif /* ATTNSCOPE_CUDA_H_ */
