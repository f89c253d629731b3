"""Pure planning logic of bench_cuda.py (no torch, no GPU), so that tests run it anywhere
(test/native/cuda_gpu_scripts.test.ts runs test_bench_plan.py with python3):

- which decode shapes are judged: only those whose working set (K + V bytes read) is at least
  4x the device's L2, so that the "fraction of copy bandwidth" is an HBM figure, not an L2 one;
- how many copies of the page pools a shape rotates through, so that no timed launch finds its
  pool in L2 from the launch before;
- how many launches one timed sample holds (CUDA graph or event pair), so that the launch gap and
  the event resolution (about 0.5 us) stay small against the sample.
"""
import math

# Decode is judged on shapes whose working set is at least this many L2s.
DECODE_MIN_L2_MULTIPLE = 4

# Decode shapes: (name, batch, context_len, page_size, num_heads, num_kv_heads, head_dim).
# GQA groups 1 (Llama-2-7B: 32/32) and 2 (16/8) on CUDA cores; 4 (Llama-3-8B: 32/8), 5
# (Qwen2.5-32B: 40/8) and 8 (Llama-3-70B on one GPU: 64/8) on tensor cores; every one moves
# >= 256 MiB of K/V per launch (4x an L2 of 64 MiB).
DECODE_SHAPES = [
    ("group4 B1 ctx64k", 1, 65536, 16, 32, 8, 128),
    ("group4 B16 ctx8k", 16, 8192, 16, 32, 8, 128),
    ("group4 B64 ctx4k", 64, 4096, 16, 32, 8, 128),
    ("group4 B256 ctx1k", 256, 1024, 16, 32, 8, 128),
    ("group4 B64 ctx4k page64", 64, 4096, 64, 32, 8, 128),
    ("group1 B16 ctx4k", 16, 4096, 16, 32, 32, 128),
    ("group1 B128 ctx1k", 128, 1024, 16, 32, 32, 128),
    ("group8 B32 ctx4k", 32, 4096, 16, 64, 8, 128),
    ("group8 B1 ctx64k", 1, 65536, 16, 64, 8, 128),
    ("group5 B32 ctx4k", 32, 4096, 16, 40, 8, 128),
    ("group2 B32 ctx4k", 32, 4096, 16, 16, 8, 128),
]
DECODE_QUICK = ("group4 B16 ctx8k", "group1 B16 ctx4k", "group2 B32 ctx4k", "group8 B32 ctx4k")

# Flash shapes: (seqlen, batch, num_heads, head_dim) at 16k tokens per launch, causal and not.
FLASH_SHAPES = [(1024, 16, 32, 128), (4096, 4, 32, 128), (16384, 1, 32, 128), (4096, 4, 32, 64)]
FLASH_QUICK = [(1024, 16, 32, 128), (4096, 4, 32, 128)]


def decode_kv_bytes(batch, context_len, num_kv_heads, head_dim, elem_bytes=2):
    """K + V bytes one decode launch reads: every token's K and V row of every KV head."""
    return 2 * batch * context_len * num_kv_heads * head_dim * elem_bytes


def decode_io_bytes(batch, num_heads, head_dim, elem_bytes=2):
    """Q read + O written."""
    return 2 * batch * num_heads * head_dim * elem_bytes


def decode_judged(kv_bytes, l2_bytes):
    """(judged, reason): a shape is judged when its K/V bytes are >= DECODE_MIN_L2_MULTIPLE x L2."""
    need = DECODE_MIN_L2_MULTIPLE * l2_bytes
    if kv_bytes >= need:
        return True, f"working set {kv_bytes / 2**20:.0f} MiB >= {DECODE_MIN_L2_MULTIPLE}x L2 ({need / 2**20:.0f} MiB)"
    return False, f"working set {kv_bytes / 2**20:.0f} MiB < {DECODE_MIN_L2_MULTIPLE}x L2 ({need / 2**20:.0f} MiB): L2-resident"


def pool_copies(pool_bytes, l2_bytes, free_bytes, budget_fraction=0.5):
    """Copies of a shape's K/V pools to rotate through: enough that the launches between two uses
    of one copy move >= 2x L2 (so it was evicted), at least 2; 0 when 2 copies exceed
    budget_fraction of the free device memory (the shape is then skipped)."""
    if pool_bytes <= 0:
        raise ValueError("pool_bytes must be > 0")
    copies = max(2, 1 + math.ceil(2 * l2_bytes / pool_bytes))
    budget = budget_fraction * free_bytes
    while copies > 2 and copies * pool_bytes > budget:
        copies -= 1
    return copies if copies * pool_bytes <= budget else 0


def launches_per_sample(estimate_ms, target_ms=20.0, min_launches=1, max_launches=500, multiple_of=1):
    """Launches in one timed sample: about target_ms of device time, a multiple of multiple_of
    (the pool rotation), within [min_launches, max_launches] rounded up to that multiple."""
    if not estimate_ms > 0:
        n = max_launches
    else:
        n = math.ceil(target_ms / estimate_ms)
    n = max(min_launches, min(max_launches, n))
    return multiple_of * math.ceil(n / multiple_of)


def summarize(samples_ms):
    """Median, p10, p90 (nearest rank) of per-launch times in ms."""
    if not samples_ms:
        raise ValueError("no samples")
    s = sorted(samples_ms)
    q = lambda f: s[min(len(s) - 1, int(f * (len(s) - 1) + 0.5))]
    n = len(s)
    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return {"median_ms": median, "p10_ms": q(0.1), "p90_ms": q(0.9), "samples": n}


def flash_flops(batch, num_heads, seqlen, head_dim, causal):
    """4 B H N^2 D (two matmuls of 2 N^2 D each); causal counts the N (N + 1) / 2 visible scores."""
    pairs = seqlen * (seqlen + 1) / 2 if causal else seqlen * seqlen
    return 4 * batch * num_heads * pairs * head_dim
