"""ctypes view of libattnscope_cuda.so's C ABI (native/cuda/include/attnscope_cuda.h).

Kept in step with the header by hand: ABI_VERSION must equal ATTNSCOPE_CUDA_ABI_VERSION, which
load() checks. Device pointers come from torch tensors (tensor.data_ptr()).
"""
import ctypes
from ctypes import POINTER, Structure, c_char, c_double, c_float, c_int, c_size_t, c_uint64, c_void_p

ABI_VERSION = 1
FP16, BF16 = 0, 1
STATUS = {0: "ok", 1: "invalid argument", 2: "unsupported", 3: "no device", 4: "out of memory", 5: "CUDA error"}


class DeviceInfo(Structure):
    _fields_ = [
        ("name", c_char * 256),
        ("compute_capability_major", c_int),
        ("compute_capability_minor", c_int),
        ("multiprocessor_count", c_int),
        ("sm_clock_khz", c_int),
        ("memory_clock_khz", c_int),
        ("memory_bus_width_bits", c_int),
        ("l2_cache_bytes", c_int),
        ("max_shared_memory_per_block_optin", c_int),
        ("driver_version", c_int),
        ("runtime_version", c_int),
        ("total_memory_bytes", c_uint64),
        ("free_memory_bytes", c_uint64),
    ]


class FlashParams(Structure):
    _fields_ = [
        ("q", c_void_p), ("k", c_void_p), ("v", c_void_p), ("o", c_void_p), ("lse", c_void_p),
        ("batch", c_int), ("seq_len_q", c_int), ("seq_len_k", c_int), ("num_heads", c_int),
        ("num_kv_heads", c_int), ("head_dim", c_int), ("causal", c_int), ("window_left", c_int),
        ("softmax_scale", c_float), ("dtype", c_int),
    ]


class DecodeParams(Structure):
    _fields_ = [
        ("q", c_void_p), ("k_pool", c_void_p), ("v_pool", c_void_p), ("block_table", c_void_p),
        ("context_lens", c_void_p), ("o", c_void_p), ("lse", c_void_p), ("workspace", c_void_p),
        ("batch", c_int), ("num_heads", c_int), ("num_kv_heads", c_int), ("head_dim", c_int),
        ("page_size", c_int), ("num_pages", c_int), ("max_pages_per_seq", c_int), ("max_context_len", c_int),
        ("partition_tokens", c_int), ("softmax_scale", c_float), ("dtype", c_int),
    ]


class Timing(Structure):
    _fields_ = [("warmup", c_int), ("min_reps", c_int), ("max_reps", c_int),
                ("min_time_ms", c_double), ("max_time_ms", c_double)]


class FlashHostIO(Structure):
    _fields_ = [("q", c_void_p), ("k", c_void_p), ("v", c_void_p), ("o", c_void_p), ("lse", c_void_p)]


class DecodeHostIO(Structure):
    _fields_ = [("q", c_void_p), ("k_pool", c_void_p), ("v_pool", c_void_p), ("block_table", c_void_p),
                ("context_lens", c_void_p), ("o", c_void_p), ("lse", c_void_p)]


class CudaError(RuntimeError):
    pass


class Library:
    """The loaded library; every call raises CudaError with the library's message on failure."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        lib = self.lib
        lib.attnscope_cuda_last_error.restype = ctypes.c_char_p
        lib.attnscope_cuda_get_device_count.argtypes = [POINTER(c_int)]
        lib.attnscope_cuda_get_device_info.argtypes = [c_int, POINTER(DeviceInfo)]
        lib.attnscope_cuda_flash_fwd.argtypes = [POINTER(FlashParams), c_void_p]
        lib.attnscope_cuda_paged_decode.argtypes = [POINTER(DecodeParams), c_void_p]
        lib.attnscope_cuda_decode_workspace_bytes.argtypes = [POINTER(DecodeParams), POINTER(c_size_t)]
        lib.attnscope_cuda_decode_plan.argtypes = [POINTER(DecodeParams), POINTER(c_int), POINTER(c_int)]
        lib.attnscope_cuda_time_flash_fwd.argtypes = [POINTER(FlashParams), POINTER(Timing), POINTER(c_float), POINTER(c_int)]
        lib.attnscope_cuda_time_paged_decode.argtypes = [POINTER(DecodeParams), POINTER(Timing), POINTER(c_float), POINTER(c_int)]
        lib.attnscope_cuda_time_copy.argtypes = [c_size_t, POINTER(Timing), POINTER(c_float), POINTER(c_int)]
        lib.attnscope_cuda_flash_fwd_host.argtypes = [POINTER(FlashParams), POINTER(FlashHostIO), POINTER(Timing),
                                                      POINTER(c_float), POINTER(c_int)]
        lib.attnscope_cuda_paged_decode_host.argtypes = [POINTER(DecodeParams), POINTER(DecodeHostIO), POINTER(Timing),
                                                         POINTER(c_float), POINTER(c_int)]
        version = lib.attnscope_cuda_abi_version()
        if version != ABI_VERSION:
            raise CudaError(f"{path} has C ABI version {version}, this script speaks {ABI_VERSION}")

    def _check(self, status, what):
        if status != 0:
            message = self.lib.attnscope_cuda_last_error().decode()
            raise CudaError(f"{what}: {STATUS.get(status, status)}: {message}")

    def device_count(self):
        n = c_int(0)
        self._check(self.lib.attnscope_cuda_get_device_count(ctypes.byref(n)), "device count")
        return n.value

    def device_info(self, device=0):
        info = DeviceInfo()
        self._check(self.lib.attnscope_cuda_get_device_info(device, ctypes.byref(info)), "device info")
        out = {name: getattr(info, name) for name, _ in DeviceInfo._fields_}
        out["name"] = info.name.decode()
        # 2 (double data rate) * memory clock * bus width / 8 bytes
        out["peak_memory_bandwidth_bytes_per_s"] = 2 * info.memory_clock_khz * 1e3 * info.memory_bus_width_bits / 8
        return out

    def flash_fwd(self, p, stream=None):
        self._check(self.lib.attnscope_cuda_flash_fwd(ctypes.byref(p), stream), "flash_fwd")

    def paged_decode(self, p, stream=None):
        self._check(self.lib.attnscope_cuda_paged_decode(ctypes.byref(p), stream), "paged_decode")

    def decode_workspace_bytes(self, p):
        n = c_size_t(0)
        self._check(self.lib.attnscope_cuda_decode_workspace_bytes(ctypes.byref(p), ctypes.byref(n)), "workspace")
        return n.value

    def decode_plan(self, p):
        splits, tokens = c_int(0), c_int(0)
        self._check(self.lib.attnscope_cuda_decode_plan(ctypes.byref(p), ctypes.byref(splits), ctypes.byref(tokens)),
                    "decode plan")
        return splits.value, tokens.value

    def _time(self, fn, first, timing, what):
        samples = (c_float * timing.max_reps)()
        n = c_int(0)
        self._check(fn(first, ctypes.byref(timing), samples, ctypes.byref(n)), what)
        return [samples[i] for i in range(n.value)]

    def time_flash_fwd(self, p, timing):
        return self._time(self.lib.attnscope_cuda_time_flash_fwd, ctypes.byref(p), timing, "time flash_fwd")

    def time_paged_decode(self, p, timing):
        return self._time(self.lib.attnscope_cuda_time_paged_decode, ctypes.byref(p), timing, "time paged_decode")

    def time_copy(self, nbytes, timing):
        return self._time(self.lib.attnscope_cuda_time_copy, c_size_t(nbytes), timing, "time copy")

    def flash_fwd_host(self, p, io):
        """The addon's entry point: host inputs (16-bit patterns), O widened to fp32 on the host; no timing."""
        self._check(self.lib.attnscope_cuda_flash_fwd_host(ctypes.byref(p), ctypes.byref(io), None, None, None),
                    "flash_fwd_host")

    def paged_decode_host(self, p, io):
        self._check(self.lib.attnscope_cuda_paged_decode_host(ctypes.byref(p), ctypes.byref(io), None, None, None),
                    "paged_decode_host")
