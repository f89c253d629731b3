// The C ABI of libattnscope_cuda.so (include/attnscope_cuda.h): argument checks, status codes,
// device info, CUDA-event timing and the host-memory entry points the addon uses.
#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "attnscope_cuda.h"
#include "attnscope_cuda_math.h"
#include "launch.h"
#include "ptx.cuh"

namespace attnscope {
namespace cuda {
namespace {

thread_local std::string g_last_error;

int fail(int status, const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  g_last_error = buf;
  return status;
}

int status_of(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return ATTNSCOPE_CUDA_OK;
    case cudaErrorMemoryAllocation: return ATTNSCOPE_CUDA_ERR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return ATTNSCOPE_CUDA_ERR_NO_DEVICE;
    default: return ATTNSCOPE_CUDA_ERR_CUDA;
  }
}

int from_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return ATTNSCOPE_CUDA_OK;
  return fail(status_of(e), "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

#define RETURN_IF_CUDA(call)                         \
  do {                                               \
    const int status_ = from_cuda((call), #call);    \
    if (status_ != ATTNSCOPE_CUDA_OK) return status_; \
  } while (0)

#define RETURN_IF_FAILED(call)                       \
  do {                                               \
    const int status_ = (call);                      \
    if (status_ != ATTNSCOPE_CUDA_OK) return status_; \
  } while (0)

int check_common(int head_dim, int dtype, int num_heads, int num_kv_heads) {
  if (head_dim != 64 && head_dim != 128) {
    return fail(ATTNSCOPE_CUDA_ERR_UNSUPPORTED, "head_dim %d has no CUDA kernel (64 and 128 are compiled)", head_dim);
  }
  if (dtype != ATTNSCOPE_CUDA_FP16 && dtype != ATTNSCOPE_CUDA_BF16) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "dtype %d is neither fp16 (0) nor bf16 (1)", dtype);
  }
  if (num_heads < 1 || num_kv_heads < 1 || num_heads % num_kv_heads != 0) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "num_kv_heads %d must divide num_heads %d", num_kv_heads,
                num_heads);
  }
  return ATTNSCOPE_CUDA_OK;
}

int check_flash(const attnscope_cuda_flash_params* p, bool need_pointers) {
  if (p == nullptr) return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "params is NULL");
  RETURN_IF_FAILED(check_common(p->head_dim, p->dtype, p->num_heads, p->num_kv_heads));
  if (p->batch < 1 || p->seqlen_q < 1 || p->seqlen_k < 1) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "batch %d, seqlen_q %d, seqlen_k %d must be >= 1",
                p->batch, p->seqlen_q, p->seqlen_k);
  }
  if (p->seqlen_q > 65535 * 128 || p->num_heads > 65535 || p->batch > 65535) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "shape exceeds the launch grid");
  }
  if (p->window_left < -1) return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "window_left %d < -1", p->window_left);
  if (need_pointers && (p->q == nullptr || p->k == nullptr || p->v == nullptr || p->o == nullptr)) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "q, k, v and o must be device pointers");
  }
  return ATTNSCOPE_CUDA_OK;
}

int check_decode(const attnscope_cuda_decode_params* p, bool need_pointers) {
  if (p == nullptr) return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "params is NULL");
  RETURN_IF_FAILED(check_common(p->head_dim, p->dtype, p->num_heads, p->num_kv_heads));
  if (p->batch < 1 || p->batch > 65535 || p->page_size < 1 || p->num_pages < 1 ||
      p->max_pages_per_seq < 1 || p->max_context_len < 0 || p->partition_tokens < 0) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT,
                "batch %d, page_size %d, num_pages %d, max_pages_per_seq %d must be >= 1 "
                "(max_context_len %d, partition_tokens %d >= 0)",
                p->batch, p->page_size, p->num_pages, p->max_pages_per_seq, p->max_context_len,
                p->partition_tokens);
  }
  if (static_cast<int64_t>(p->max_context_len) > static_cast<int64_t>(p->max_pages_per_seq) * p->page_size) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "max_context_len %d exceeds max_pages_per_seq * page_size",
                p->max_context_len);
  }
  if (need_pointers && (p->q == nullptr || p->k_pool == nullptr || p->v_pool == nullptr ||
                        p->block_table == nullptr || p->context_lens == nullptr || p->o == nullptr)) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "q, k_pool, v_pool, block_table, context_lens and o must be set");
  }
  return ATTNSCOPE_CUDA_OK;
}

int decode_plan(const attnscope_cuda_decode_params* p, DecodeSplitPlan* plan) {
  int device = 0, sms = 0;
  RETURN_IF_CUDA(cudaGetDevice(&device));
  RETURN_IF_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int group = p->num_heads / p->num_kv_heads;
  const int head_chunks = ceil_div(group, 8);
  // 4 waves of blocks: a decode block holds 128 threads and up to 255 registers each.
  *plan = plan_decode_splits(p->batch * p->num_kv_heads * head_chunks, p->max_context_len, sms, 4,
                             p->partition_tokens);
  return ATTNSCOPE_CUDA_OK;
}

int run_flash(const attnscope_cuda_flash_params* p, cudaStream_t stream) {
  const cudaError_t e =
      p->head_dim == 64 ? launch_flash_fwd_hdim64(*p, stream) : launch_flash_fwd_hdim128(*p, stream);
  return from_cuda(e, "flash_fwd launch");
}

int run_decode(const attnscope_cuda_decode_params* p, cudaStream_t stream) {
  DecodeSplitPlan plan;
  RETURN_IF_FAILED(decode_plan(p, &plan));
  if (plan.num_splits > 1 && p->workspace == nullptr) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "decode with %d partitions needs a workspace", plan.num_splits);
  }
  return from_cuda(launch_paged_decode(*p, plan.num_splits, plan.partition_tokens, stream), "paged_decode launch");
}

int check_timing(const attnscope_cuda_timing* t, const float* samples_ms, const int* num_samples) {
  if (t == nullptr || samples_ms == nullptr || num_samples == nullptr) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "timing, samples_ms and num_samples must be set");
  }
  if (t->warmup < 0 || t->min_reps < 1 || t->max_reps < t->min_reps || !(t->min_time_ms >= 0) ||
      !(t->max_time_ms >= 0)) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT,
                "timing: warmup %d >= 0, 1 <= min_reps %d <= max_reps %d, times >= 0", t->warmup, t->min_reps,
                t->max_reps);
  }
  return ATTNSCOPE_CUDA_OK;
}

// Runs the timing loop of attnscope_cuda_timing: launches go out in batches, each launch
// between its own pair of events; one synchronisation per batch reads the batch's times.
template <typename Launch>
int time_launches(Launch launch, const attnscope_cuda_timing& t, float* samples_ms, int* num_samples) {
  *num_samples = 0;
  for (int i = 0; i < t.warmup; ++i) RETURN_IF_FAILED(launch());
  constexpr int kBatch = 32;
  cudaEvent_t events[2 * kBatch];
  int created = 0, status = ATTNSCOPE_CUDA_OK;
  for (; created < 2 * kBatch && status == ATTNSCOPE_CUDA_OK; ++created) {
    status = from_cuda(cudaEventCreate(&events[created]), "cudaEventCreate");
  }
  if (status != ATTNSCOPE_CUDA_OK) --created;
  double total_ms = 0;
  int done = 0;
  while (status == ATTNSCOPE_CUDA_OK) {
    const bool enough = done >= t.min_reps && total_ms >= t.min_time_ms;
    if (done > 0 && (enough || done >= t.max_reps || total_ms >= t.max_time_ms)) break;
    // One launch first (a long kernel must not run a whole batch past max_time_ms), then
    // batches sized from the time per launch so far.
    int batch = 1;
    if (done > 0) {
      const double per = total_ms / done > 1e-6 ? total_ms / done : 1e-6;
      const int for_time = t.min_time_ms > total_ms ? static_cast<int>((t.min_time_ms - total_ms) / per) + 1 : 0;
      const int room = static_cast<int>((t.max_time_ms - total_ms) / per);
      batch = max_int(max_int(t.min_reps - done, for_time), 1);
      batch = min_int(min_int(batch, max_int(room, 1)), min_int(kBatch, t.max_reps - done));
    }
    for (int i = 0; i < batch && status == ATTNSCOPE_CUDA_OK; ++i) {
      status = from_cuda(cudaEventRecord(events[2 * i], nullptr), "cudaEventRecord");
      if (status == ATTNSCOPE_CUDA_OK) status = launch();
      if (status == ATTNSCOPE_CUDA_OK) status = from_cuda(cudaEventRecord(events[2 * i + 1], nullptr), "cudaEventRecord");
    }
    if (status == ATTNSCOPE_CUDA_OK) status = from_cuda(cudaEventSynchronize(events[2 * batch - 1]), "kernel execution");
    for (int i = 0; i < batch && status == ATTNSCOPE_CUDA_OK; ++i) {
      status = from_cuda(cudaEventElapsedTime(&samples_ms[done], events[2 * i], events[2 * i + 1]),
                         "cudaEventElapsedTime");
      total_ms += samples_ms[done++];
    }
  }
  for (int i = 0; i < created; ++i) cudaEventDestroy(events[i]);
  if (status == ATTNSCOPE_CUDA_OK) status = from_cuda(cudaDeviceSynchronize(), "kernel execution");
  *num_samples = done;
  return status;
}

// Device buffers freed on scope exit.
class DeviceBuffers {
 public:
  ~DeviceBuffers() {
    for (void* p : ptrs_) cudaFree(p);
  }
  int alloc(void** out, size_t bytes, const char* name) {
    *out = nullptr;
    if (bytes == 0) return ATTNSCOPE_CUDA_OK;
    const cudaError_t e = cudaMalloc(out, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();  // a failed allocation is not sticky: clear it for the next call
      return fail(status_of(e), "cudaMalloc of %zu bytes for %s: %s", bytes, name, cudaGetErrorString(e));
    }
    ptrs_.push_back(*out);
    return ATTNSCOPE_CUDA_OK;
  }

 private:
  std::vector<void*> ptrs_;
};

template <typename T>
__global__ void widen_to_f32(const T* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = to_float<T>(in[i]);
  }
}

// Widens n dtype values at `src` to fp32 on the device and downloads them; `staging` holds n floats.
int download_widened(const void* src, float* host, float* staging, size_t n, int dtype) {
  const int blocks = static_cast<int>((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
  if (dtype == ATTNSCOPE_CUDA_BF16) {
    widen_to_f32<__nv_bfloat16><<<blocks, 256>>>(static_cast<const __nv_bfloat16*>(src), staging, n);
  } else {
    widen_to_f32<__half><<<blocks, 256>>>(static_cast<const __half*>(src), staging, n);
  }
  RETURN_IF_CUDA(cudaGetLastError());
  RETURN_IF_CUDA(cudaMemcpy(host, staging, n * sizeof(float), cudaMemcpyDeviceToHost));
  return ATTNSCOPE_CUDA_OK;
}

}  // namespace
}  // namespace cuda
}  // namespace attnscope

using namespace attnscope::cuda;

extern "C" {

int attnscope_cuda_abi_version(void) { return ATTNSCOPE_CUDA_ABI_VERSION; }

const char* attnscope_cuda_last_error(void) { return g_last_error.c_str(); }

int attnscope_cuda_get_device_count(int* count) {
  if (count == nullptr) return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "count is NULL");
  *count = 0;
  const cudaError_t e = cudaGetDeviceCount(count);
  if (e == cudaErrorNoDevice) return ATTNSCOPE_CUDA_OK;  // zero devices is an answer, not a failure
  return from_cuda(e, "cudaGetDeviceCount");
}

int attnscope_cuda_get_device_info(int device, attnscope_cuda_device_info* info) {
  if (info == nullptr) return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "info is NULL");
  cudaDeviceProp prop;
  RETURN_IF_CUDA(cudaGetDeviceProperties(&prop, device));
  *info = attnscope_cuda_device_info{};
  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->compute_capability_major = prop.major;
  info->compute_capability_minor = prop.minor;
  info->multiprocessor_count = prop.multiProcessorCount;
  info->memory_bus_width_bits = prop.memoryBusWidth;
  info->l2_cache_bytes = prop.l2CacheSize;
  info->max_shared_memory_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  info->total_memory_bytes = prop.totalGlobalMem;
  // Clocks left cudaDeviceProp in CUDA 13; they remain device attributes.
  RETURN_IF_CUDA(cudaDeviceGetAttribute(&info->sm_clock_khz, cudaDevAttrClockRate, device));
  RETURN_IF_CUDA(cudaDeviceGetAttribute(&info->memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  RETURN_IF_CUDA(cudaDriverGetVersion(&info->driver_version));
  RETURN_IF_CUDA(cudaRuntimeGetVersion(&info->runtime_version));
  int current = 0;
  RETURN_IF_CUDA(cudaGetDevice(&current));
  RETURN_IF_CUDA(cudaSetDevice(device));
  size_t free_bytes = 0, total_bytes = 0;
  const cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes);
  cudaSetDevice(current);
  RETURN_IF_CUDA(e);
  info->free_memory_bytes = free_bytes;
  return ATTNSCOPE_CUDA_OK;
}

int attnscope_cuda_set_device(int device) { return from_cuda(cudaSetDevice(device), "cudaSetDevice"); }

int attnscope_cuda_flash_fwd(const attnscope_cuda_flash_params* p, void* stream) {
  RETURN_IF_FAILED(check_flash(p, true));
  return run_flash(p, static_cast<cudaStream_t>(stream));
}

int attnscope_cuda_decode_plan(const attnscope_cuda_decode_params* p, int* num_splits, int* partition_tokens) {
  RETURN_IF_FAILED(check_decode(p, false));
  if (num_splits == nullptr || partition_tokens == nullptr) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "num_splits and partition_tokens must be set");
  }
  DecodeSplitPlan plan;
  RETURN_IF_FAILED(decode_plan(p, &plan));
  *num_splits = plan.num_splits;
  *partition_tokens = plan.partition_tokens;
  return ATTNSCOPE_CUDA_OK;
}

int attnscope_cuda_decode_workspace_bytes(const attnscope_cuda_decode_params* p, size_t* bytes) {
  RETURN_IF_FAILED(check_decode(p, false));
  if (bytes == nullptr) return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "bytes is NULL");
  DecodeSplitPlan plan;
  RETURN_IF_FAILED(decode_plan(p, &plan));
  *bytes = paged_decode_workspace_bytes(*p, plan.num_splits);
  return ATTNSCOPE_CUDA_OK;
}

int attnscope_cuda_paged_decode(const attnscope_cuda_decode_params* p, void* stream) {
  RETURN_IF_FAILED(check_decode(p, true));
  return run_decode(p, static_cast<cudaStream_t>(stream));
}

int attnscope_cuda_time_flash_fwd(const attnscope_cuda_flash_params* p, const attnscope_cuda_timing* timing,
                                  float* samples_ms, int* num_samples) {
  RETURN_IF_FAILED(check_flash(p, true));
  RETURN_IF_FAILED(check_timing(timing, samples_ms, num_samples));
  return time_launches([p] { return run_flash(p, nullptr); }, *timing, samples_ms, num_samples);
}

int attnscope_cuda_time_paged_decode(const attnscope_cuda_decode_params* p, const attnscope_cuda_timing* timing,
                                     float* samples_ms, int* num_samples) {
  RETURN_IF_FAILED(check_decode(p, true));
  RETURN_IF_FAILED(check_timing(timing, samples_ms, num_samples));
  return time_launches([p] { return run_decode(p, nullptr); }, *timing, samples_ms, num_samples);
}

int attnscope_cuda_flash_fwd_host(const attnscope_cuda_flash_params* params, const attnscope_cuda_flash_host_io* io,
                                  const attnscope_cuda_timing* timing, float* samples_ms, int* num_samples) {
  RETURN_IF_FAILED(check_flash(params, false));
  if (timing != nullptr) RETURN_IF_FAILED(check_timing(timing, samples_ms, num_samples));
  if (io == nullptr || io->q == nullptr || io->k == nullptr || io->v == nullptr || io->o == nullptr) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "io.q, io.k, io.v and io.o must be host pointers");
  }
  attnscope_cuda_flash_params p = *params;
  const size_t nq = static_cast<size_t>(p.batch) * p.seqlen_q * p.num_heads * p.head_dim;
  const size_t nkv = static_cast<size_t>(p.batch) * p.seqlen_k * p.num_kv_heads * p.head_dim;
  const size_t nlse = static_cast<size_t>(p.batch) * p.num_heads * p.seqlen_q;
  DeviceBuffers buffers;
  void *q, *k, *v, *o, *lse, *staging;
  RETURN_IF_FAILED(buffers.alloc(&q, nq * 2, "q"));
  RETURN_IF_FAILED(buffers.alloc(&k, nkv * 2, "k"));
  RETURN_IF_FAILED(buffers.alloc(&v, nkv * 2, "v"));
  RETURN_IF_FAILED(buffers.alloc(&o, nq * 2, "o"));
  RETURN_IF_FAILED(buffers.alloc(&lse, nlse * sizeof(float), "lse"));
  RETURN_IF_FAILED(buffers.alloc(&staging, nq * sizeof(float), "fp32 staging"));
  float* stage = static_cast<float*>(staging);
  RETURN_IF_CUDA(cudaMemcpy(q, io->q, nq * 2, cudaMemcpyHostToDevice));
  RETURN_IF_CUDA(cudaMemcpy(k, io->k, nkv * 2, cudaMemcpyHostToDevice));
  RETURN_IF_CUDA(cudaMemcpy(v, io->v, nkv * 2, cudaMemcpyHostToDevice));
  p.q = q;
  p.k = k;
  p.v = v;
  p.o = o;
  p.lse = static_cast<float*>(lse);
  if (timing != nullptr) {
    RETURN_IF_FAILED(time_launches([&p] { return run_flash(&p, nullptr); }, *timing, samples_ms, num_samples));
  } else {
    RETURN_IF_FAILED(run_flash(&p, nullptr));
  }
  RETURN_IF_FAILED(download_widened(o, io->o, stage, nq, p.dtype));
  if (io->lse != nullptr) RETURN_IF_CUDA(cudaMemcpy(io->lse, lse, nlse * sizeof(float), cudaMemcpyDeviceToHost));
  return ATTNSCOPE_CUDA_OK;
}

int attnscope_cuda_paged_decode_host(const attnscope_cuda_decode_params* params,
                                     const attnscope_cuda_decode_host_io* io, const attnscope_cuda_timing* timing,
                                     float* samples_ms, int* num_samples) {
  RETURN_IF_FAILED(check_decode(params, false));
  if (timing != nullptr) RETURN_IF_FAILED(check_timing(timing, samples_ms, num_samples));
  if (io == nullptr || io->q == nullptr || io->k_pool == nullptr || io->v_pool == nullptr ||
      io->block_table == nullptr || io->context_lens == nullptr || io->o == nullptr) {
    return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "io.q, k_pool, v_pool, block_table, context_lens, o must be set");
  }
  attnscope_cuda_decode_params p = *params;
  // The block table and lengths are checked here, on the host, so a bad entry can never make
  // the kernel read outside the pools.
  for (int b = 0; b < p.batch; ++b) {
    const int len = io->context_lens[b];
    if (len < 0 || len > p.max_context_len) {
      return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "context_lens[%d] = %d outside [0, max_context_len %d]", b, len,
                  p.max_context_len);
    }
    for (int i = 0; i < ceil_div(len, p.page_size); ++i) {
      const int page = io->block_table[static_cast<size_t>(b) * p.max_pages_per_seq + i];
      if (page < 0 || page >= p.num_pages) {
        return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "block_table[%d][%d] = %d outside [0, num_pages %d)", b, i,
                    page, p.num_pages);
      }
    }
  }
  const size_t nq = static_cast<size_t>(p.batch) * p.num_heads * p.head_dim;
  const size_t npool = static_cast<size_t>(p.num_pages) * p.page_size * p.num_kv_heads * p.head_dim;
  const size_t ntable = static_cast<size_t>(p.batch) * p.max_pages_per_seq;
  size_t workspace_bytes = 0;
  RETURN_IF_FAILED(attnscope_cuda_decode_workspace_bytes(&p, &workspace_bytes));
  DeviceBuffers buffers;
  void *q, *kp, *vp, *table, *lens, *o, *lse, *workspace, *staging;
  RETURN_IF_FAILED(buffers.alloc(&q, nq * 2, "q"));
  RETURN_IF_FAILED(buffers.alloc(&kp, npool * 2, "k_pool"));
  RETURN_IF_FAILED(buffers.alloc(&vp, npool * 2, "v_pool"));
  RETURN_IF_FAILED(buffers.alloc(&table, ntable * sizeof(int32_t), "block_table"));
  RETURN_IF_FAILED(buffers.alloc(&lens, p.batch * sizeof(int32_t), "context_lens"));
  RETURN_IF_FAILED(buffers.alloc(&o, nq * 2, "o"));
  RETURN_IF_FAILED(buffers.alloc(&lse, static_cast<size_t>(p.batch) * p.num_heads * sizeof(float), "lse"));
  RETURN_IF_FAILED(buffers.alloc(&workspace, workspace_bytes, "workspace"));
  RETURN_IF_FAILED(buffers.alloc(&staging, nq * sizeof(float), "fp32 staging"));
  float* stage = static_cast<float*>(staging);
  RETURN_IF_CUDA(cudaMemcpy(q, io->q, nq * 2, cudaMemcpyHostToDevice));
  RETURN_IF_CUDA(cudaMemcpy(kp, io->k_pool, npool * 2, cudaMemcpyHostToDevice));
  RETURN_IF_CUDA(cudaMemcpy(vp, io->v_pool, npool * 2, cudaMemcpyHostToDevice));
  RETURN_IF_CUDA(cudaMemcpy(table, io->block_table, ntable * sizeof(int32_t), cudaMemcpyHostToDevice));
  RETURN_IF_CUDA(cudaMemcpy(lens, io->context_lens, p.batch * sizeof(int32_t), cudaMemcpyHostToDevice));
  p.q = q;
  p.k_pool = kp;
  p.v_pool = vp;
  p.block_table = static_cast<const int32_t*>(table);
  p.context_lens = static_cast<const int32_t*>(lens);
  p.o = o;
  p.lse = static_cast<float*>(lse);
  p.workspace = workspace;
  if (timing != nullptr) {
    RETURN_IF_FAILED(time_launches([&p] { return run_decode(&p, nullptr); }, *timing, samples_ms, num_samples));
  } else {
    RETURN_IF_FAILED(run_decode(&p, nullptr));
  }
  RETURN_IF_FAILED(download_widened(o, io->o, stage, nq, p.dtype));
  if (io->lse != nullptr) {
    RETURN_IF_CUDA(cudaMemcpy(io->lse, lse, static_cast<size_t>(p.batch) * p.num_heads * sizeof(float),
                              cudaMemcpyDeviceToHost));
  }
  return ATTNSCOPE_CUDA_OK;
}

int attnscope_cuda_time_copy(size_t bytes, const attnscope_cuda_timing* timing, float* samples_ms,
                             int* num_samples) {
  if (bytes == 0) return fail(ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT, "bytes must be > 0");
  RETURN_IF_FAILED(check_timing(timing, samples_ms, num_samples));
  DeviceBuffers buffers;
  void *src, *dst;
  RETURN_IF_FAILED(buffers.alloc(&src, bytes, "copy source"));
  RETURN_IF_FAILED(buffers.alloc(&dst, bytes, "copy destination"));
  RETURN_IF_CUDA(cudaMemset(src, 0, bytes));
  return time_launches(
      [&] { return from_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nullptr), "cudaMemcpyAsync"); },
      *timing, samples_ms, num_samples);
}

}  // extern "C"
