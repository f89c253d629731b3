"""GPU checks of libattnscope_cuda.so for test/gpu/run.sh (needs torch and a CUDA device):

1. correctness of flash forward and paged decode against an fp64 reference on odd shapes, and
   the host-memory entry points (the addon's) once each against the device-pointer ones;
2. flash forward against torch SDPA pinned to its FLASH and its CUDNN backend in turn, at
   N in {1k, 4k, 16k} (head_dim 128, and 4k at 64), causal and not; ours is checked against
   both outputs at every shape (target: >= 1.0x SDPA's speed);
3. paged decode bandwidth against the measured device copy bandwidth (the faster of a memcpy and
   an SM copy kernel; the SM read bandwidth beside it), only on shapes whose K/V
   working set is >= 4x L2, GQA groups 1, 2 (CUDA cores), 4, 5 and 8 (tensor cores), page pools
   rotated (target: >= 85%).
Ours and torch's kernels are timed by one method (bench_timing.DeviceTimer: CUDA graph of n
launches per event pair, L2 flushed before each sample, median of 10 samples).
Writes one JSON document (rewritten after each section, so a timeout keeps what finished).
Usage: bench_cuda.py --lib LIB --json OUT [--quick] [--correctness-only] [--sanitize]
  --sanitize: a few small correctness cases only, no timing (run under compute-sanitizer).
Exit status: 0 all correct, 1 a correctness check failed, 2 no device / setup failure.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback

import bench_plan as plan
from attnscope_cuda import (BF16, FP16, CudaError, DecodeHostIO, DecodeParams, FlashHostIO, FlashParams,
                            Library)
from bench_timing import DeviceTimer

TOL = {"fp16": 3e-3, "bf16": 1.5e-2}
# Ours vs SDPA, both bf16 outputs: two roundings of |O| <= ~1 (2^-8 each) plus accumulation order.
SDPA_TOL = 2e-2


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------
# fp64 references (materialize S), written from DESIGN.md's definitions.

def ref_flash(torch, q, k, v, causal, window, scale):
    """q [B, Nq, H, D], k/v [B, Nk, Hkv, D] -> O fp64 [B, Nq, H, D], lse fp64 [B, H, Nq]."""
    B, Nq, H, D = q.shape
    Nk, Hkv = k.shape[1], k.shape[2]
    qd = q.double().transpose(1, 2)
    kd = k.double().repeat_interleave(H // Hkv, dim=2).transpose(1, 2)
    vd = v.double().repeat_interleave(H // Hkv, dim=2).transpose(1, 2)
    s = (qd @ kd.transpose(-1, -2)) * scale
    i = torch.arange(Nq, device=q.device)[:, None]
    j = torch.arange(Nk, device=q.device)[None, :]
    diag = i + Nk - Nq
    visible = torch.ones(Nq, Nk, dtype=torch.bool, device=q.device)
    if causal:
        visible &= j <= diag
    if window > 0:
        visible &= j > diag - window
    s = s.masked_fill(~visible, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    return (p @ vd).transpose(1, 2), lse


def ref_decode(torch, q, k_pool, v_pool, table, lens, scale):
    """q [B, H, D], pools [P, S, Hkv, D] -> O fp64 [B, H, D], lse fp64 [B, H]."""
    B, H, D = q.shape
    page_size, Hkv = k_pool.shape[1], k_pool.shape[2]
    o = torch.zeros(B, H, D, dtype=torch.float64, device=q.device)
    lse = torch.full((B, H), float("-inf"), dtype=torch.float64, device=q.device)
    for b in range(B):
        n = int(lens[b])
        if n == 0:
            continue
        t = torch.arange(n, device=q.device)
        pages = table[b, t // page_size].long()
        kk = k_pool[pages, t % page_size].double().repeat_interleave(H // Hkv, dim=1)  # [n, H, D]
        vv = v_pool[pages, t % page_size].double().repeat_interleave(H // Hkv, dim=1)
        s = torch.einsum("hd,nhd->hn", q[b].double(), kk) * scale
        lse[b] = torch.logsumexp(s, dim=-1)
        o[b] = torch.einsum("hn,nhd->hd", torch.softmax(s, dim=-1), vv)
    return o, lse


# ---------------------------------------------------------------------------------------------

def torch_dtype(torch, name):
    return {"bf16": torch.bfloat16, "fp16": torch.float16}[name]


def stream(torch):
    return torch.cuda.current_stream().cuda_stream


def flash_params(q, k, v, o, lse, causal, window, dtype):
    B, Nq, H, D = q.shape
    return FlashParams(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                       lse.data_ptr() if lse is not None else None, B, Nq, k.shape[1], H, k.shape[2], D,
                       1 if causal else 0, window - 1 if window > 0 else -1, 1.0 / math.sqrt(D),
                       BF16 if dtype == "bf16" else FP16)


def make_decode(torch, lib, dtype, lens, page_size, H, Hkv, D, partition_tokens=0, seed=0, pools=1):
    """Decode inputs with `pools` copies of the page pools (same q, table, lens and output)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = torch_dtype(torch, dtype)
    B = len(lens)
    max_pages = max(1, max(math.ceil(n / page_size) for n in lens))
    num_pages = B * max_pages + 1
    pool_shape = (num_pages, page_size, Hkv, D)
    k_pools = [torch.empty(pool_shape, device="cuda", dtype=dt).normal_(generator=g) for _ in range(pools)]
    v_pools = [torch.empty(pool_shape, device="cuda", dtype=dt).normal_(generator=g) for _ in range(pools)]
    perm = torch.randperm(num_pages, generator=g, device="cuda").to(torch.int32)
    table = perm[: B * max_pages].reshape(B, max_pages).contiguous()
    lens_t = torch.tensor(lens, dtype=torch.int32, device="cuda")
    q = torch.empty(B, H, D, device="cuda", dtype=dt).normal_(generator=g)
    o = torch.empty(B, H, D, device="cuda", dtype=dt)
    lse = torch.empty(B, H, device="cuda", dtype=torch.float32)
    params = []
    for kp, vp in zip(k_pools, v_pools):
        params.append(DecodeParams(q.data_ptr(), kp.data_ptr(), vp.data_ptr(), table.data_ptr(), lens_t.data_ptr(),
                                   o.data_ptr(), lse.data_ptr(), None, B, H, Hkv, D, page_size, num_pages, max_pages,
                                   max(lens), partition_tokens, 1.0 / math.sqrt(D), BF16 if dtype == "bf16" else FP16))
    ws_bytes = lib.decode_workspace_bytes(params[0])
    ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")
    for p in params:
        p.workspace = ws.data_ptr() if ws_bytes > 0 else None
    tensors = dict(q=q, k_pool=k_pools[0], v_pool=v_pools[0], k_pools=k_pools, v_pools=v_pools, table=table,
                   lens=lens_t, o=o, lse=lse, ws=ws)
    return params, tensors


def errors(torch, o, lse, ro, rl):
    """(max |O - ref|, max |lse - ref| over finite rows, masked rows have lse -inf, no NaN in O)."""
    o_err = (o.double() - ro).abs().max().item()
    finite = torch.isfinite(rl)
    lse_err = (lse.double()[finite] - rl[finite]).abs().max().item() if finite.any() else 0.0
    masked_ok = bool(torch.all(torch.isneginf(lse[~finite])).item()) if (~finite).any() else True
    return o_err, lse_err, masked_ok and not torch.isnan(o).any().item()


FLASH_CASES = [
    # dtype, B, Nq, Nk, H, Hkv, D, causal, window[, key ramp]
    ("bf16", 1, 1, 1, 1, 1, 64, False, 0),
    ("fp16", 2, 77, 131, 4, 2, 64, True, 0),
    ("bf16", 1, 200, 130, 6, 1, 128, True, 0),
    ("fp16", 1, 257, 257, 2, 2, 128, False, 0),
    ("bf16", 2, 190, 300, 4, 4, 128, True, 33),
    ("bf16", 1, 1000, 1000, 8, 2, 128, True, 0),
    ("fp16", 3, 129, 4097, 2, 1, 64, False, 0),
    ("bf16", 1, 1, 3000, 8, 8, 128, True, 0),
    ("fp16", 1, 300, 700, 4, 1, 64, False, 100),
    # keys ramped by (1 + 0.25 j): the running max rises every tile, so every tile rescales O
    ("bf16", 1, 70, 300, 2, 1, 128, False, 0, 0.25),
]
DECODE_CASES = [
    # dtype, lens, page_size, H, Hkv, D. GQA groups <= 2 run on CUDA cores, larger on tensor cores.
    ("bf16", [1, 0, 37, 1000], 16, 8, 2, 128),
    ("fp16", [513, 64, 9], 8, 4, 4, 64),
    ("bf16", [5000, 255, 256, 257], 256, 32, 8, 128),
    ("fp16", [3000], 32, 12, 1, 64),  # group 12: tensor cores, 4 zero rows
    ("bf16", [20000, 1], 64, 64, 8, 128),  # group 8: tensor cores
    ("fp16", [999, 1001], 10, 16, 2, 128),  # page size not a multiple of 4 (the unroll), within 8..256 (core/kernelLimits.json)
    ("bf16", [4100, 33], 16, 16, 16, 128),  # GQA group 1
    ("fp16", [777, 3, 0], 8, 40, 8, 128),  # group 5 on tensor cores
    ("bf16", [1500, 40], 16, 16, 8, 128),  # group 2: the widest on CUDA cores
    ("bf16", [2500, 129], 32, 32, 1, 64),  # group 32: two 16-head chunks
]
SANITIZE_FLASH = [0, 1, 4, 8]
SANITIZE_DECODE = [0, 1, 8]  # tensor cores (group 4), CUDA cores (groups 1 and 2)


def check_host_entry_points(torch, lib, out):
    """The addon's host-memory entry points, once each, against the device-pointer entry points
    on the same inputs: same kernel, same plan, so O must match bit for bit (widened to fp32)."""
    g = torch.Generator(device="cuda").manual_seed(7)
    q = torch.randn(1, 150, 4, 128, generator=g, device="cuda").bfloat16()
    k = torch.randn(1, 190, 2, 128, generator=g, device="cuda").bfloat16()
    v = torch.randn(1, 190, 2, 128, generator=g, device="cuda").bfloat16()
    o = torch.empty_like(q)
    lse = torch.empty(1, 4, 150, device="cuda")
    p = flash_params(q, k, v, o, lse, True, 0, "bf16")
    lib.flash_fwd(p, stream(torch))
    torch.cuda.synchronize()
    host = [t.cpu().contiguous().view(torch.int16) for t in (q, k, v)]
    o_host = torch.empty(q.shape, dtype=torch.float32)
    lse_host = torch.empty(lse.shape, dtype=torch.float32)
    lib.flash_fwd_host(p, FlashHostIO(*(t.data_ptr() for t in host), o_host.data_ptr(), lse_host.data_ptr()))
    diff = max((o_host - o.float().cpu()).abs().max().item(), (lse_host - lse.cpu()).abs().max().item())
    out.append({"kernel": "flash_fwd_host", "maxAbsDiffVsDevice": diff, "ok": diff == 0.0})
    log(f"flash_fwd_host vs flash_fwd: max |diff| {diff:.1e} {'ok' if diff == 0.0 else 'FAIL'}")

    for H, Hkv in ((4, 2), (16, 2)):  # GQA group 2 on CUDA cores, group 8 on tensor cores
        params, t = make_decode(torch, lib, "bf16", [1, 0, 37, 1000], 16, H, Hkv, 128, 64, seed=3)
        lib.paged_decode(params[0], stream(torch))
        torch.cuda.synchronize()
        names = ("q", "k_pool", "v_pool")
        host = [t[n].cpu().contiguous().view(torch.int16) for n in names] + [t["table"].cpu(), t["lens"].cpu()]
        o_host = torch.empty(t["o"].shape, dtype=torch.float32)
        lse_host = torch.empty(t["lse"].shape, dtype=torch.float32)
        lib.paged_decode_host(params[0], DecodeHostIO(*(x.data_ptr() for x in host), o_host.data_ptr(),
                                                      lse_host.data_ptr()))
        ref_lse = t["lse"].cpu()
        finite = torch.isfinite(ref_lse)
        diff = (o_host - t["o"].float().cpu()).abs().max().item()
        diff = max(diff, (lse_host[finite] - ref_lse[finite]).abs().max().item())
        ok = diff == 0.0 and bool(torch.equal(torch.isneginf(lse_host), torch.isneginf(ref_lse)))
        out.append({"kernel": "paged_decode_host", "heads": [H, Hkv], "maxAbsDiffVsDevice": diff, "ok": ok})
        log(f"paged_decode_host vs paged_decode H{H}/{Hkv}: max |diff| {diff:.1e} {'ok' if ok else 'FAIL'}")


def check_correctness(torch, lib, results, sanitize=False):
    out = []
    g = torch.Generator(device="cuda").manual_seed(1)
    flash_cases = [FLASH_CASES[i] for i in SANITIZE_FLASH] if sanitize else FLASH_CASES
    for dtype, B, Nq, Nk, H, Hkv, D, causal, window, *ramp in flash_cases:
        dt = torch_dtype(torch, dtype)
        q = torch.randn(B, Nq, H, D, generator=g, device="cuda").to(dt)
        k = torch.randn(B, Nk, Hkv, D, generator=g, device="cuda")
        if ramp:
            k *= 1 + ramp[0] * torch.arange(Nk, device="cuda")[None, :, None, None]
        k = k.to(dt)
        v = torch.rand(B, Nk, Hkv, D, generator=g, device="cuda").mul(2).sub(1).to(dt)
        o = torch.full_like(q, float("nan"))
        lse = torch.empty(B, H, Nq, device="cuda", dtype=torch.float32)
        lib.flash_fwd(flash_params(q, k, v, o, lse, causal, window, dtype), stream(torch))
        torch.cuda.synchronize()
        ro, rl = ref_flash(torch, q, k, v, causal, window, 1.0 / math.sqrt(D))
        o_err, lse_err, clean = errors(torch, o, lse, ro, rl)
        ok = o_err < TOL[dtype] and lse_err < 1e-3 and clean
        out.append({"kernel": "flash_fwd", "dtype": dtype, "shape": [B, Nq, Nk, H, Hkv, D], "causal": causal,
                    "window": window, "maxAbsErr": o_err, "lseMaxAbsErr": lse_err, "ok": ok})
        log(f"flash {dtype} B{B} Nq{Nq} Nk{Nk} H{H}/{Hkv} D{D} causal={causal} window={window}: "
            f"O err {o_err:.2e} lse err {lse_err:.2e} {'ok' if ok else 'FAIL'}")
    decode_cases = [DECODE_CASES[i] for i in SANITIZE_DECODE] if sanitize else DECODE_CASES
    for dtype, lens, page_size, H, Hkv, D in decode_cases:
        for partition in (0, page_size * 4):
            params, t = make_decode(torch, lib, dtype, lens, page_size, H, Hkv, D, partition, seed=len(lens) + page_size)
            t["o"].fill_(float("nan"))
            lib.paged_decode(params[0], stream(torch))
            torch.cuda.synchronize()
            ro, rl = ref_decode(torch, t["q"], t["k_pool"], t["v_pool"], t["table"], lens, 1.0 / math.sqrt(D))
            o_err, lse_err, clean = errors(torch, t["o"], t["lse"], ro, rl)
            splits, ptok = lib.decode_plan(params[0])
            ok = o_err < TOL[dtype] and lse_err < 1e-3 and clean
            out.append({"kernel": "paged_decode", "dtype": dtype, "contextLens": lens, "pageSize": page_size,
                        "heads": [H, Hkv, D], "numSplits": splits, "partitionTokens": ptok,
                        "maxAbsErr": o_err, "lseMaxAbsErr": lse_err, "ok": ok})
            log(f"decode {dtype} lens {lens} page {page_size} H{H}/{Hkv} D{D} splits {splits}x{ptok}: "
                f"O err {o_err:.2e} lse err {lse_err:.2e} {'ok' if ok else 'FAIL'}")
    if not sanitize:
        check_host_entry_points(torch, lib, out)
    results["correctness"] = out
    return all(c["ok"] for c in out)


def sdpa_backends(torch):
    """[(name, context factory)] for the FLASH and CUDNN backends this torch has, and torch's own
    priority order (the order an unpinned SDPA call tries them) where it says."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return [], None
    found = [(name, (lambda b=getattr(SDPBackend, attr): sdpa_kernel([b])))
             for name, attr in (("FLASH", "FLASH_ATTENTION"), ("CUDNN", "CUDNN_ATTENTION")) if hasattr(SDPBackend, attr)]
    order = None
    try:
        order = [SDPBackend(int(b)).name for b in torch._C._get_sdp_priority_order()]
    except Exception:  # noqa: BLE001 - a private API; recorded only where it exists
        pass
    return found, order


def bench_flash(torch, lib, results, timer, quick):
    F = torch.nn.functional
    backends, results["sdpaPriorityOrder"] = sdpa_backends(torch)
    out = []
    for N, B, H, D in (plan.FLASH_QUICK if quick else plan.FLASH_SHAPES):
        for causal in (False, True):
            g = torch.Generator(device="cuda").manual_seed(N + D)
            q, k, v = (torch.randn(B, N, H, D, generator=g, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            o = torch.empty_like(q)
            lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
            p = flash_params(q, k, v, o, lse, causal, 0, "bf16")
            flops = plan.flash_flops(B, H, N, D, causal)
            row = {"N": N, "B": B, "H": H, "D": D, "causal": causal, "dtype": "bf16", "flops": flops,
                   "ours": timer.time([lambda: lib.flash_fwd(p, stream(torch))]), "sdpa": {}}
            row["oursTflops"] = flops / (row["ours"]["median_ms"] * 1e-3) / 1e12
            ok = True
            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            for name, ctx in backends:
                def sdpa(ctx=ctx):
                    with ctx():
                        return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
                try:
                    ref = sdpa()
                    torch.cuda.synchronize()
                    diff = (o.float() - ref.transpose(1, 2).float()).abs().max().item()
                    stats = timer.time([sdpa])
                    entry = {**stats, "tflops": flops / (stats["median_ms"] * 1e-3) / 1e12,
                             "speedupOursVs": stats["median_ms"] / row["ours"]["median_ms"],
                             "maxAbsDiffOursVs": diff, "ok": diff < SDPA_TOL}
                    ok &= entry["ok"]
                    del ref
                except Exception as e:  # noqa: BLE001 - a backend that cannot run this shape says why
                    entry = {"error": str(e).splitlines()[0][:200]}
                row["sdpa"][name] = entry
            row["ok"] = ok
            out.append(row)
            parts = [f"ours {row['ours']['median_ms']:.3f} ms ({row['oursTflops']:.0f} TFLOP/s)"]
            for name, e in row["sdpa"].items():
                parts.append(f"SDPA-{name} " + (f"{e['median_ms']:.3f} ms ({e['tflops']:.0f} TFLOP/s) x{e['speedupOursVs']:.2f} "
                                                f"|diff| {e['maxAbsDiffOursVs']:.1e}" if "error" not in e else f"error: {e['error']}"))
            log(f"flash N={N} B={B} H={H} D={D} causal={causal}: " + "; ".join(parts) + ("" if ok else " FAIL"))
            del q, k, v, o, lse
            torch.cuda.empty_cache()
    results["flash"] = out
    return all(r["ok"] for r in out)


def measure_roofs(torch, timer, nbytes=2 << 30):
    """The device memory roofs decode is judged against, each timed like the kernels (DeviceTimer,
    cold L2): "memcpy" (dst.copy_(src): a graph memcpy node, which the copy engines may serve),
    "smCopy" (torch.mul(src, 1.0, out=dst): an elementwise kernel on the SMs), both counting bytes
    read + written, and "smRead" (torch.sum(src, dim=0): a reduction, bytes read only). Returns
    {name: {**timer stats, bytes, bandwidthBytesPerS}}. The first H200 run (session 35) timed the
    memcpy alone at 2.77 TB/s while group-1 decode read 3.97 TB/s: a memcpy is no roof for a kernel."""
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    total = torch.empty((), dtype=torch.float32, device="cuda")
    roofs = {}
    for name, fn, moved in (("memcpy", lambda: dst.copy_(src), 2 * nbytes),
                            ("smCopy", lambda: torch.mul(src, 1.0, out=dst), 2 * nbytes),
                            ("smRead", lambda: torch.sum(src, dim=0, out=total), nbytes)):
        stats = timer.time([fn], target_ms=20.0)
        roofs[name] = {**stats, "bytes": moved, "bandwidthBytesPerS": moved / (stats["median_ms"] * 1e-3)}
        log(f"roof {name} {nbytes >> 20} MiB: {stats['median_ms']:.3f} ms = "
            f"{roofs[name]['bandwidthBytesPerS'] / 1e12:.2f} TB/s ({stats['method']})")
    del src, dst, total
    torch.cuda.empty_cache()
    return roofs


def bench_decode(torch, lib, results, timer, quick, l2_bytes):
    roofs = measure_roofs(torch, timer)
    # Decode's target is a fraction of the copy bandwidth: the faster of the two copies. Its
    # fraction of the read roof (decode reads K/V and writes little) is given beside it.
    copy_name = max(("memcpy", "smCopy"), key=lambda n: roofs[n]["bandwidthBytesPerS"])
    copy_bw = roofs[copy_name]["bandwidthBytesPerS"]
    read_bw = roofs["smRead"]["bandwidthBytesPerS"]
    results["roofs"] = roofs
    results["copy"] = {"method": copy_name, "bandwidthBytesPerS": copy_bw}
    out, ok = [], True
    for name, B, ctx, page_size, H, Hkv, D in plan.DECODE_SHAPES:
        if quick and name not in plan.DECODE_QUICK:
            continue
        kv_bytes = plan.decode_kv_bytes(B, ctx, Hkv, D)
        row = {"name": name, "batch": B, "contextLen": ctx, "pageSize": page_size, "heads": [H, Hkv, D],
               "dtype": "bf16", "kvBytes": kv_bytes}
        judged, row["why"] = plan.decode_judged(kv_bytes, l2_bytes)
        copies = plan.pool_copies(kv_bytes, l2_bytes, torch.cuda.mem_get_info()[0])
        if not judged or copies == 0:
            row["skipped"] = row["why"] if not judged else "not enough device memory for 2 pool copies"
            out.append(row)
            log(f"decode {name}: skipped: {row['skipped']}")
            continue
        params, t = make_decode(torch, lib, "bf16", [ctx] * B, page_size, H, Hkv, D, seed=B, pools=copies)
        # Correctness at the benchmark shape: sequence 0 against fp64.
        lib.paged_decode(params[0], stream(torch))
        torch.cuda.synchronize()
        ro, rl = ref_decode(torch, t["q"][:1], t["k_pool"], t["v_pool"], t["table"][:1], [ctx], 1.0 / math.sqrt(D))
        o_err, lse_err, clean = errors(torch, t["o"][:1], t["lse"][:1], ro, rl)
        row.update(maxAbsErrSeq0=o_err, lseMaxAbsErrSeq0=lse_err, ok=o_err < TOL["bf16"] and lse_err < 1e-3 and clean)
        ok &= row["ok"]
        stats = timer.time([lambda p=p: lib.paged_decode(p, stream(torch)) for p in params])
        moved = kv_bytes + plan.decode_io_bytes(B, H, D)
        bw = moved / (stats["median_ms"] * 1e-3)
        splits, ptok = lib.decode_plan(params[0])
        row.update(**stats, poolCopies=copies, bytes=moved, bandwidthBytesPerS=bw, fractionOfCopy=bw / copy_bw,
                   fractionOfRead=bw / read_bw, numSplits=splits, partitionTokens=ptok)
        out.append(row)
        log(f"decode {name} page {page_size}: {stats['median_ms']:.3f} ms, {bw / 1e12:.2f} TB/s = "
            f"{100 * bw / copy_bw:.0f}% of copy, {100 * bw / read_bw:.0f}% of read (splits {splits}x{ptok}, {copies} pool copies, {stats['method']}); "
            f"seq 0 err {o_err:.1e} {'ok' if row['ok'] else 'FAIL'}")
        del params, t
        torch.cuda.empty_cache()
    results["decode"] = out
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--correctness-only", action="store_true")
    ap.add_argument("--sanitize", action="store_true", help="a few small correctness cases, no timing")
    args = ap.parse_args()
    results = {"schema": 2, "tool": "attnscope test/gpu/bench_cuda.py", "status": "failed"}

    def save():
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1)
        os.replace(tmp, args.json)

    try:
        lib = Library(args.lib)
        if lib.device_count() == 0:
            raise CudaError("no CUDA device")
        results["device"] = lib.device_info(0)
    except (OSError, CudaError) as e:
        results["error"] = f"no usable CUDA device: {e}"
        log(results["error"])
        save()
        return 2
    try:
        import torch
    except ImportError as e:
        results["error"] = f"PyTorch is needed for the references: {e}"
        log(results["error"])
        save()
        return 2
    results["torch"] = torch.__version__
    l2 = results["device"]["l2_cache_bytes"]
    log(f"device {results['device']['name']}, {results['device']['multiprocessor_count']} SMs, "
        f"L2 {l2 / 2**20:.0f} MiB, torch {torch.__version__}")
    sections = [("correctness", lambda: check_correctness(torch, lib, results, args.sanitize))]
    if not (args.correctness_only or args.sanitize):
        timer = DeviceTimer(torch, l2)
        results["timing"] = "CUDA graph of n launches per event pair (eager if capture fails), L2 flushed before " \
                            "each of 10 samples, median per launch; ours and SDPA alike"
        sections += [("flash", lambda: bench_flash(torch, lib, results, timer, args.quick)),
                     ("decode", lambda: bench_decode(torch, lib, results, timer, args.quick, l2))]
    correct = True
    for name, section in sections:
        t0 = time.time()
        try:
            correct &= bool(section())
        except Exception as e:  # keep going: the other sections still report
            correct = False
            results.setdefault("errors", []).append(f"{name}: {e}")
            log(f"{name} failed: {e}")
            traceback.print_exc()
        results.setdefault("sectionSeconds", {})[name] = round(time.time() - t0, 1)
        save()
    flash = results.get("flash", [])
    decode = [r for r in results.get("decode", []) if "fractionOfCopy" in r]
    speedups = {name: [r["sdpa"][name]["speedupOursVs"] for r in flash if "speedupOursVs" in r["sdpa"].get(name, {})]
                for name in ("FLASH", "CUDNN")}
    results["summary"] = {
        "correct": correct,
        "flashMinSpeedupVsSdpa": {k: min(v) if v else None for k, v in speedups.items()},
        "flashTarget": 1.0,
        "decodeMinFractionOfCopy": min((r["fractionOfCopy"] for r in decode), default=None),
        "decodeMedianFractionOfCopy": statistics.median([r["fractionOfCopy"] for r in decode]) if decode else None,
        "decodeMinFractionOfRead": min((r["fractionOfRead"] for r in decode), default=None),
        "decodeTarget": 0.85,
    }
    results["status"] = "ok" if correct and "errors" not in results else "failed"
    save()
    log(f"summary: {json.dumps(results['summary'])}")
    return 0 if correct else 1


if __name__ == "__main__":
    sys.exit(main())
