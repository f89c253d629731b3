"""The host-memory entry points of libattnscope_cuda.so (what the addon calls) refuse bad
arguments before touching a device: status "invalid argument" (1) or "unsupported" (2) and a
message naming the argument, on any machine, GPU or not. A valid call gets past the checks: on
a machine without a GPU it then fails with "no device" or "CUDA error", never an argument status.
Run: python3 test/gpu/test_host_checks.py LIB (test/native/cuda_gpu_scripts.test.ts does, in
npm test, where the library is built; test/gpu/run.sh does on the GPU machine)."""
import ctypes
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attnscope_cuda import (BF16, FP16, STATUS, DecodeHostIO, DecodeParams, FlashHostIO,  # noqa: E402
                            FlashParams, Library, Timing)

LIB = None  # set by main()
INVALID, UNSUPPORTED = 1, 2


def halves(n):
    return (ctypes.c_uint16 * n)()


def floats(n):
    return (ctypes.c_float * n)()


def ints(values):
    return (ctypes.c_int32 * len(values))(*values)


def addr(buf):
    return ctypes.cast(buf, ctypes.c_void_p).value


class Flash:
    """A valid 1 x 3 x 2-head (1 KV head) x 64 flash call on host buffers."""

    def __init__(self, **changes):
        B, Nq, Nk, H, Hkv, D = 1, 3, 5, 2, 1, 64
        self.bufs = [halves(B * Nq * H * D), halves(B * Nk * Hkv * D), halves(B * Nk * Hkv * D),
                     floats(B * Nq * H * D), floats(B * H * Nq)]
        self.io = FlashHostIO(*(addr(b) for b in self.bufs))
        fields = dict(batch=B, seq_len_q=Nq, seq_len_k=Nk, num_heads=H, num_kv_heads=Hkv, head_dim=D, causal=1,
                      window_left=-1, softmax_scale=0.125, dtype=BF16)
        fields.update(changes)
        self.p = FlashParams(None, None, None, None, None, *(fields[n] for n, _ in FlashParams._fields_[5:]))

    def call(self, io=True, timing=None, samples=None, n=None):
        return LIB.lib.attnscope_cuda_flash_fwd_host(ctypes.byref(self.p), ctypes.byref(self.io) if io else None,
                                                      timing, samples, n)


class Decode:
    """A valid decode call: 2 sequences (lens 9 and 0), page size 8, 4 query heads over 1 KV head."""

    def __init__(self, lens=(9, 0), table=(3, 1, 0, 2), **changes):
        fields = dict(batch=2, num_heads=4, num_kv_heads=1, head_dim=128, page_size=8, num_pages=4,
                      max_pages_per_seq=2, max_context_len=16, partition_tokens=0, softmax_scale=0.088, dtype=FP16)
        fields.update(changes)
        B, H, D = fields["batch"], fields["num_heads"], fields["head_dim"]
        pool = fields["num_pages"] * fields["page_size"] * fields["num_kv_heads"] * D
        self.table, self.lens = ints(table), ints(lens)
        self.bufs = [halves(B * H * D), halves(pool), halves(pool), floats(B * H * D), floats(B * H)]
        q, k, v, o, lse = (addr(b) for b in self.bufs)
        self.io = DecodeHostIO(q, k, v, addr(self.table), addr(self.lens), o, lse)
        self.p = DecodeParams(*([None] * 8), *(fields[n] for n, _ in DecodeParams._fields_[8:]))

    def call(self, io=True, timing=None, samples=None, n=None):
        return LIB.lib.attnscope_cuda_paged_decode_host(ctypes.byref(self.p), ctypes.byref(self.io) if io else None,
                                                         timing, samples, n)


def message():
    return LIB.lib.attnscope_cuda_last_error().decode()


class HostEntryPointChecks(unittest.TestCase):
    def refused(self, status, expected, pattern):
        self.assertEqual(STATUS.get(status), STATUS[expected], message())
        self.assertRegex(message(), pattern)

    def test_flash_refuses_bad_shapes_before_any_device_work(self):
        self.refused(Flash(head_dim=96).call(), UNSUPPORTED, r"^head_dim 96 has no CUDA kernel \(64 and 128")
        self.refused(Flash(dtype=7).call(), INVALID, r"^dtype 7 is neither")
        self.refused(Flash(num_heads=3, num_kv_heads=2).call(), INVALID, r"^num_kv_heads 2 must divide num_heads 3")
        self.refused(Flash(seq_len_k=0).call(), INVALID, r"seq_len_k 0 must be >= 1")
        self.refused(Flash(window_left=-2).call(), INVALID, r"^window_left -2 < -1")
        self.refused(Flash(softmax_scale=0.0).call(), INVALID, r"^softmax_scale 0 must be finite and > 0")
        self.refused(Flash().call(io=False), INVALID, r"^io\.q, io\.k, io\.v and io\.o must be host pointers")

    def test_timing_is_checked_when_given(self):
        t = Timing(1, 5, 2, 0.0, 10.0)  # max_reps < min_reps
        samples, n = floats(5), ctypes.c_int(0)
        self.refused(Flash().call(timing=ctypes.byref(t), samples=samples, n=ctypes.byref(n)), INVALID,
                     r"^timing: warmup 1 >= 0, 1 <= min_reps 5 <= max_reps 2")
        self.refused(Decode().call(timing=ctypes.byref(t)), INVALID, r"^timing, samples_ms and num_samples must be set")

    def test_decode_refuses_bad_shapes_and_bad_tables_on_the_host(self):
        self.refused(Decode(page_size=4).call(), UNSUPPORTED, r"^page_size 4 is outside \[8, 256\]")
        self.refused(Decode(max_context_len=17).call(), INVALID, r"^max_context_len 17 exceeds")
        self.refused(Decode().call(io=False), INVALID, r"^io\.q, k_pool, v_pool, block_table, context_lens, o")
        # Sequence 1 claims 17 tokens, more than max_context_len 16.
        self.refused(Decode(lens=(9, 17)).call(), INVALID, r"^context_lens\[1\] = 17 outside \[0, max_context_len 16\]")
        # Sequence 0 has 9 tokens: pages 0 and 1 of its row are read, and page 4 does not exist.
        self.refused(Decode(table=(3, 4, 0, 2)).call(), INVALID, r"^block_table\[0\]\[1\] = 4 outside \[0, num_pages 4\)")
        # Row 1 is never read (sequence 1 is empty): a garbage entry there is no error.
        status = Decode(table=(3, 1, -5, 99)).call()
        self.assertNotIn(status, (INVALID, UNSUPPORTED), message())

    def test_valid_calls_get_past_the_checks(self):
        for call in (Flash().call, Decode().call, Decode(head_dim=64, num_heads=16, num_kv_heads=1).call):
            status = call()
            self.assertNotIn(status, (INVALID, UNSUPPORTED), message())
            if status != 0:  # no GPU here: the first device call says so
                self.assertIn(STATUS.get(status), ("no device", "CUDA error", "out of memory"), message())


def main():
    global LIB
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ATTNSCOPE_CUDA_LIB")
    if not path:
        print("usage: test_host_checks.py LIB", file=sys.stderr)
        return 2
    LIB = Library(path)
    return 0 if unittest.main(argv=sys.argv[:1], exit=False).result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
