"""GPU checks of libattnscope_cuda.so for test/gpu/run.sh (needs torch and a CUDA device):

1. correctness of flash forward and paged decode against an fp64 reference on odd shapes;
2. flash forward against torch.nn.functional.scaled_dot_product_attention at N in {1k, 4k, 16k},
   head_dim 128, causal and not (target: >= 1.0x SDPA's speed);
3. paged decode bandwidth against the device's measured copy bandwidth, batch 1..256, context
   1k..32k (target: >= 85%).
Writes one JSON document (rewritten after each section, so a timeout keeps what finished).
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

from attnscope_cuda import BF16, FP16, CudaError, DecodeParams, FlashParams, Library, Timing


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def summarize(samples_ms):
    s = sorted(samples_ms)
    q = lambda f: s[min(len(s) - 1, int(f * (len(s) - 1) + 0.5))]
    return {"median_ms": statistics.median(s), "p10_ms": q(0.1), "p90_ms": q(0.9), "samples": len(s)}


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


def flash_params(q, k, v, o, lse, causal, window, dtype):
    B, Nq, H, D = q.shape
    return FlashParams(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                       lse.data_ptr() if lse is not None else None, B, Nq, k.shape[1], H, k.shape[2], D,
                       1 if causal else 0, window - 1 if window > 0 else -1, 1.0 / math.sqrt(D),
                       BF16 if dtype == "bf16" else FP16)


def make_decode(torch, lib, dtype, lens, page_size, H, Hkv, D, partition_tokens=0, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = torch_dtype(torch, dtype)
    B = len(lens)
    max_pages = max(1, max(math.ceil(n / page_size) for n in lens))
    num_pages = B * max_pages + 1
    pool_shape = (num_pages, page_size, Hkv, D)
    k_pool = torch.empty(pool_shape, device="cuda", dtype=dt).normal_(generator=g)
    v_pool = torch.empty(pool_shape, device="cuda", dtype=dt).normal_(generator=g)
    perm = torch.randperm(num_pages, generator=g, device="cuda").to(torch.int32)
    table = perm[: B * max_pages].reshape(B, max_pages).contiguous()
    lens_t = torch.tensor(lens, dtype=torch.int32, device="cuda")
    q = torch.empty(B, H, D, device="cuda", dtype=dt).normal_(generator=g)
    o = torch.empty(B, H, D, device="cuda", dtype=dt)
    lse = torch.empty(B, H, device="cuda", dtype=torch.float32)
    p = DecodeParams(q.data_ptr(), k_pool.data_ptr(), v_pool.data_ptr(), table.data_ptr(), lens_t.data_ptr(),
                     o.data_ptr(), lse.data_ptr(), None, B, H, Hkv, D, page_size, num_pages, max_pages, max(lens),
                     partition_tokens, 1.0 / math.sqrt(D), BF16 if dtype == "bf16" else FP16)
    ws_bytes = lib.decode_workspace_bytes(p)
    ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")
    p.workspace = ws.data_ptr() if ws_bytes > 0 else None
    tensors = dict(q=q, k_pool=k_pool, v_pool=v_pool, table=table, lens=lens_t, o=o, lse=lse, ws=ws)
    return p, tensors


def check_correctness(torch, lib, results):
    tol = {"fp16": 3e-3, "bf16": 1.5e-2}
    out = []
    flash_cases = [
        # dtype, B, Nq, Nk, H, Hkv, D, causal, window
        ("bf16", 1, 1, 1, 1, 1, 64, False, 0),
        ("fp16", 2, 77, 131, 4, 2, 64, True, 0),
        ("bf16", 1, 200, 130, 6, 1, 128, True, 0),
        ("fp16", 1, 257, 257, 2, 2, 128, False, 0),
        ("bf16", 2, 190, 300, 4, 4, 128, True, 33),
        ("bf16", 1, 1000, 1000, 8, 2, 128, True, 0),
        ("fp16", 3, 129, 4097, 2, 1, 64, False, 0),
        ("bf16", 1, 1, 3000, 8, 8, 128, True, 0),
    ]
    g = torch.Generator(device="cuda").manual_seed(1)
    for dtype, B, Nq, Nk, H, Hkv, D, causal, window in flash_cases:
        dt = torch_dtype(torch, dtype)
        q = torch.randn(B, Nq, H, D, generator=g, device="cuda").to(dt)
        k = torch.randn(B, Nk, Hkv, D, generator=g, device="cuda").to(dt)
        v = torch.rand(B, Nk, Hkv, D, generator=g, device="cuda").mul(2).sub(1).to(dt)
        o = torch.full_like(q, float("nan"))
        lse = torch.empty(B, H, Nq, device="cuda", dtype=torch.float32)
        lib.flash_fwd(flash_params(q, k, v, o, lse, causal, window, dtype), torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        ro, rl = ref_flash(torch, q, k, v, causal, window, 1.0 / math.sqrt(D))
        o_err = (o.double() - ro).abs().max().item()
        finite = torch.isfinite(rl)
        lse_err = (lse.double()[finite] - rl[finite]).abs().max().item() if finite.any() else 0.0
        masked_ok = bool(torch.all(torch.isneginf(lse[~finite])).item()) if (~finite).any() else True
        ok = o_err < tol[dtype] and lse_err < 1e-3 and masked_ok and not torch.isnan(o).any().item()
        out.append({"kernel": "flash_fwd", "dtype": dtype, "shape": [B, Nq, Nk, H, Hkv, D], "causal": causal,
                    "window": window, "maxAbsErr": o_err, "lseMaxAbsErr": lse_err, "ok": ok})
        log(f"flash {dtype} B{B} Nq{Nq} Nk{Nk} H{H}/{Hkv} D{D} causal={causal} window={window}: "
            f"O err {o_err:.2e} lse err {lse_err:.2e} {'ok' if ok else 'FAIL'}")
    decode_cases = [
        # dtype, lens, page_size, H, Hkv, D
        ("bf16", [1, 0, 37, 1000], 16, 8, 2, 128),
        ("fp16", [513, 64, 9], 8, 4, 4, 64),
        ("bf16", [5000, 255, 256, 257], 256, 32, 8, 128),
        ("fp16", [3000], 32, 12, 1, 64),
        ("bf16", [20000, 1], 64, 64, 8, 128),
        ("fp16", [999, 1001], 10, 16, 2, 128),  # page size not a multiple of 4 (the unroll), within 8..256
    ]
    for dtype, lens, page_size, H, Hkv, D in decode_cases:
        for partition in (0, page_size * 4):
            p, t = make_decode(torch, lib, dtype, lens, page_size, H, Hkv, D, partition, seed=len(lens) + page_size)
            t["o"].fill_(float("nan"))
            lib.paged_decode(p, torch.cuda.current_stream().cuda_stream)
            torch.cuda.synchronize()
            ro, rl = ref_decode(torch, t["q"], t["k_pool"], t["v_pool"], t["table"], lens, 1.0 / math.sqrt(D))
            o_err = (t["o"].double() - ro).abs().max().item()
            finite = torch.isfinite(rl)
            lse_err = (t["lse"].double()[finite] - rl[finite]).abs().max().item()
            masked_ok = bool(torch.all(torch.isneginf(t["lse"][~finite])).item()) if (~finite).any() else True
            splits, ptok = lib.decode_plan(p)
            ok = o_err < tol[dtype] and lse_err < 1e-3 and masked_ok
            out.append({"kernel": "paged_decode", "dtype": dtype, "contextLens": lens, "pageSize": page_size,
                        "heads": [H, Hkv, D], "numSplits": splits, "partitionTokens": ptok,
                        "maxAbsErr": o_err, "lseMaxAbsErr": lse_err, "ok": ok})
            log(f"decode {dtype} lens {lens} page {page_size} H{H}/{Hkv} D{D} splits {splits}x{ptok}: "
                f"O err {o_err:.2e} lse err {lse_err:.2e} {'ok' if ok else 'FAIL'}")
    results["correctness"] = out
    return all(c["ok"] for c in out)


def bench_flash(torch, lib, results, quick):
    F = torch.nn.functional
    out = []
    H, D, dtype = 32, 128, "bf16"
    timing = Timing(3, 10, 30, 50.0, 2000.0)
    seqs = [1024, 4096] if quick else [1024, 4096, 16384]
    for N in seqs:
        B = max(1, 16384 // N)
        for causal in (False, True):
            g = torch.Generator(device="cuda").manual_seed(N)
            q = torch.randn(B, N, H, D, generator=g, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(B, N, H, D, generator=g, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(B, N, H, D, generator=g, device="cuda", dtype=torch.bfloat16)
            o = torch.empty_like(q)
            lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
            p = flash_params(q, k, v, o, lse, causal, 0, dtype)
            ours = summarize(lib.time_flash_fwd(p, timing))
            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            sdpa = lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
            for _ in range(3):
                ref = sdpa()
            times = []
            for _ in range(20):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                sdpa()
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e))
            theirs = summarize(times)
            diff = (o.float() - ref.transpose(1, 2).float()).abs().max().item()
            flops = 4 * B * H * N * N * D * (0.5 if causal else 1.0)  # causal: about half the scores
            row = {"N": N, "B": B, "H": H, "D": D, "causal": causal, "dtype": dtype,
                   "ours": ours, "sdpa": theirs,
                   "oursTflops": flops / (ours["median_ms"] * 1e-3) / 1e12,
                   "sdpaTflops": flops / (theirs["median_ms"] * 1e-3) / 1e12,
                   "speedupVsSdpa": theirs["median_ms"] / ours["median_ms"],
                   "maxAbsDiffVsSdpa": diff}
            out.append(row)
            log(f"flash N={N} B={B} causal={causal}: ours {ours['median_ms']:.3f} ms ({row['oursTflops']:.0f} TFLOP/s), "
                f"SDPA {theirs['median_ms']:.3f} ms ({row['sdpaTflops']:.0f} TFLOP/s), x{row['speedupVsSdpa']:.2f}, "
                f"|diff| {diff:.1e}")
            del q, k, v, o, lse, ref
    results["flash"] = out


def bench_decode(torch, lib, results, quick):
    copy_bytes = 2 << 30
    copy = summarize(lib.time_copy(copy_bytes, Timing(3, 10, 30, 50.0, 2000.0)))
    copy_bw = 2 * copy_bytes / (copy["median_ms"] * 1e-3)
    log(f"device copy {copy_bytes >> 20} MiB: {copy['median_ms']:.3f} ms = {copy_bw / 1e12:.2f} TB/s (read + write)")
    results["copy"] = {"bytes": copy_bytes, **copy, "bandwidthBytesPerS": copy_bw}
    H, Hkv, D, dtype = 32, 8, 128, "bf16"  # Llama-3-8B attention shape
    shapes = [(1, 1024, 16), (1, 8192, 16), (1, 32768, 16), (16, 4096, 16), (16, 32768, 16),
              (64, 8192, 16), (256, 1024, 16), (256, 4096, 16), (256, 8192, 16),
              (64, 8192, 8), (64, 8192, 64), (64, 8192, 256)]
    if quick:
        shapes = shapes[:3] + shapes[6:8]
    out = []
    timing = Timing(3, 20, 100, 20.0, 2000.0)
    for B, ctx, page_size in shapes:
        p, t = make_decode(torch, lib, dtype, [ctx] * B, page_size, H, Hkv, D, seed=B)
        stats = summarize(lib.time_paged_decode(p, timing))
        kv_bytes = 2 * B * ctx * Hkv * D * 2
        io_bytes = 2 * B * H * D * 2
        bw = (kv_bytes + io_bytes) / (stats["median_ms"] * 1e-3)
        splits, ptok = lib.decode_plan(p)
        row = {"batch": B, "contextLen": ctx, "pageSize": page_size, "heads": [H, Hkv, D], "dtype": dtype,
               **stats, "bytes": kv_bytes + io_bytes, "bandwidthBytesPerS": bw,
               "fractionOfCopy": bw / copy_bw, "numSplits": splits, "partitionTokens": ptok}
        out.append(row)
        log(f"decode B={B} ctx={ctx} page={page_size}: {stats['median_ms']:.3f} ms, {bw / 1e12:.2f} TB/s = "
            f"{100 * bw / copy_bw:.0f}% of copy (splits {splits}x{ptok})")
        del p, t
        torch.cuda.empty_cache()
    results["decode"] = out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    results = {"schema": 1, "tool": "attnscope test/gpu/bench_cuda.py", "status": "failed"}

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
    results["sdpaBackendsEnabled"] = {
        name: getattr(torch.backends.cuda, f"{name}_sdp_enabled")()
        for name in ("flash", "mem_efficient", "cudnn", "math")
        if hasattr(torch.backends.cuda, f"{name}_sdp_enabled")
    }
    log(f"device {results['device']['name']}, {results['device']['multiprocessor_count']} SMs, torch {torch.__version__}")
    correct = False
    for name, section in (("correctness", None), ("flash", bench_flash), ("decode", bench_decode)):
        t0 = time.time()
        try:
            if section is None:
                correct = check_correctness(torch, lib, results)
            else:
                section(torch, lib, results, args.quick)
        except Exception as e:  # keep going: the other sections still report
            results.setdefault("errors", []).append(f"{name}: {e}")
            log(f"{name} failed: {e}")
            traceback.print_exc()
        results.setdefault("sectionSeconds", {})[name] = round(time.time() - t0, 1)
        save()
    flash = results.get("flash", [])
    decode = results.get("decode", [])
    results["summary"] = {
        "correct": correct,
        "flashMinSpeedupVsSdpa": min((r["speedupVsSdpa"] for r in flash), default=None),
        "flashTarget": 1.0,
        "decodeMaxFractionOfCopy": max((r["fractionOfCopy"] for r in decode), default=None),
        "decodeMedianFractionOfCopy": statistics.median([r["fractionOfCopy"] for r in decode]) if decode else None,
        "decodeTarget": 0.85,
    }
    results["status"] = "ok" if correct and "errors" not in results else "failed"
    save()
    log(f"summary: {json.dumps(results['summary'])}")
    return 0 if correct else 1


if __name__ == "__main__":
    sys.exit(main())
