// The terminal kernel table names, per case, the path that ran and the peak its % divides by.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import type { KernelCase } from '../../core/protocol/run';
import { profileFromModelConfig } from '../../core/config/index';
import { estimate } from '../../core/estimate/index';
import { casesCaption, formatCases, formatEstimate, formatRun } from '../../runner/table';
import { run as fixtureRun } from '../fixtures/run';
import { loadModel } from './helpers';
import { sampleStats } from '../../runner/measure';
import { spreadName } from '../../core/noise';
import type { Environment } from '../../core/protocol/run';

const base: KernelCase = {
  kernel: 'flash_fwd', backend: 'cpu', dtype: 'bf16',
  shape: { batchSize: 1, numHeads: 8, numKvHeads: 8, headDim: 128, seqLenQ: 4096, seqLenK: 4096, causal: false, slidingWindow: null },
  samplesNs: [1e6], medianNs: 1e6, p10Ns: 1e6, p90Ns: 1e6, flops: 2e8, bytes: 1e5, gflops: 200, gbps: 0.1,
  fractionOfPeak: 0.5, maxAbsErr: 0, lseMaxAbsErr: 0,
};

describe('formatCases', () => {
  it('a one-sample case says it has no spread, not "561.3-561.3" (s51 nc-cli #14: DeepSeek-V3 flash under --quick, n 1)', () => {
    const one = { ...base, medianNs: 561.3e6, p10Ns: 561.3e6, p90Ns: 561.3e6, samplesNs: [561.3e6] };
    const two = { ...base, medianNs: 561.3e6, p10Ns: 560e6, p90Ns: 562.6e6, samplesNs: [560e6, 562.6e6] };
    const [, , oneRow, twoRow] = formatCases([one, two], Infinity).split('\n');
    assert.match(oneRow!, / 1 sample: no spread /);
    assert.doesNotMatch(oneRow!, /561\.3-561\.3/);
    assert.match(twoRow!, / 560\.0-562\.6 /);
  });

  it('marks a row whose p90 / p10 reaches 2 as noisy, with the ratio, and the caption says what that means (s47 newcomer LOW)', () => {
    // The newcomer's row: p10-p90 0.426-15.97 ms: 15.97 / 0.426 = 37.49 -> "noisy 37.5x"; a 1.0-1.9 ms row (1.9x) is not marked.
    const noisy = { ...base, medianNs: 1.2e6, p10Ns: 0.426e6, p90Ns: 15.97e6, samplesNs: Array(20).fill(1e6) };
    const quiet = { ...base, medianNs: 1.2e6, p10Ns: 1.0e6, p90Ns: 1.9e6, samplesNs: Array(20).fill(1e6) };
    const [, , row, quietRow] = formatCases([noisy, quiet], Infinity).split('\n');
    assert.match(row!, / noisy 37\.5x /);
    assert.doesNotMatch(quietRow!, /noisy/);
    const caption = casesCaption({ cases: [noisy], environment: undefined as unknown as Environment });
    assert.match(caption, /"noisy Nx": p90 \/ p10 = N >= 2, so that row's median, rate and % of peak may be off by as much/);
    assert.doesNotMatch(casesCaption({ cases: [quiet], environment: undefined as unknown as Environment }), /noisy/);
  });

  it('prints the SIMD path, the product unit and the peak of that unit per case', () => {
    const text = formatCases([
      { ...base, simdPath: 'avx2', productUnit: 'fp32-fma', ceiling: 'fp32 FMA peak' },
      { ...base, backend: 'cuda', fractionOfPeak: null },
    ], Infinity);
    const [header, , cpu, cuda] = text.split('\n');
    assert.match(header!, /path .*% of peak +peak/);
    // One token where the path's name says the unit (avx2 multiplies on its FMA unit): not "avx2 fp32-fma".
    assert.match(cpu!, /bf16 +avx2 +\d .* 50% +fp32 FMA peak/);
    assert.doesNotMatch(cpu!, /fp32-fma/);
    assert.match(cuda!, /cuda .* - +- /);
  });

  it('names the product unit beside the path only where the path\'s name does not say it, and the caption says what the parentheses are', () => {
    const scalar: KernelCase = { ...base, simdPath: 'scalar', productUnit: 'scalar' };
    const dot: KernelCase = { ...base, simdPath: 'avx512bf16', productUnit: 'avx512-bf16' };
    // bf16 decode on an AMX CPU runs vdpbf16ps (kernels.h product_unit): the path alone would suggest tiles.
    const amxDecode: KernelCase = { ...base, kernel: 'paged_decode', simdPath: 'amx', productUnit: 'avx512-bf16' };
    const [, , s, d, a] = formatCases([scalar, dot, amxDecode], Infinity).split('\n');
    assert.match(s!, /bf16 +scalar +\d/);
    assert.match(d!, /bf16 +avx512bf16 +\d/);
    assert.match(a!, /bf16 +amx \(avx512-bf16\) +\d/);
    const say = /path: the SIMD path that ran, and in parentheses the unit that did the products/;
    assert.match(casesCaption({ cases: [amxDecode], environment: undefined as unknown as Environment }), say);
    assert.doesNotMatch(casesCaption({ cases: [scalar, dot], environment: undefined as unknown as Environment }), say);
  });

  it('shows a compute-bound decode row (MLA: 128 heads on one latent) in GFLOP/s against the compute peak, saying so', () => {
    const mla: KernelCase = {
      ...base, kernel: 'paged_decode', kvDtype: 'bf16', simdPath: 'avx512bf16', productUnit: 'avx512-bf16',
      shape: { batchSize: 1, numHeads: 128, numKvHeads: 1, headDim: 512, seqLenQ: 1, seqLenK: 4096, causal: true, slidingWindow: null, pageSize: 64, mlaLatentDim: 576 },
      gflops: 268, gbps: 1.28, fractionOfPeak: 0.335, ceiling: 'AVX512-BF16 peak', bound: 'compute',
    };
    const gqa: KernelCase = { ...mla, shape: { ...mla.shape, numHeads: 32, numKvHeads: 8, headDim: 128, mlaLatentDim: undefined }, gbps: 20, fractionOfPeak: 0.5, ceiling: 'DRAM read bandwidth', bound: 'memory' };
    const [, , m, g] = formatCases([mla, gqa], Infinity).split('\n');
    assert.match(m!, / 268 GFLOP\/s +34% +AVX512-BF16 peak \(compute-bound\)/);
    assert.match(g!, / 20\.0 GB\/s +50% +DRAM read bandwidth \(memory-bound\)/);
  });

  it('groups a rate of 1,000 and more as every other figure (core/format formatSignificant): 2,250 GFLOP/s, not 2250', () => {
    const [, , fast, wide] = formatCases([{ ...base, gflops: 2250.3 }, { ...base, gflops: 12_345.6, kernel: 'paged_decode', bound: 'memory', gbps: 1049.7 }], Infinity).split('\n');
    assert.match(fast!, / 2,250 GFLOP\/s /);
    assert.match(wide!, / 1,050 GB\/s /);
  });
  it('fits 100 columns on a wide case (MLA shape, noisy spread, path, bound), every cell still printed, kernel and shape in each part', () => {
    // Unsplit, this row is over 190 columns (kernel 12 + shape 46 + path 22 + spread 32 + peak 32 + the rest).
    const wide: KernelCase = {
      ...base, kernel: 'paged_decode', kvDtype: 'bf16', simdPath: 'avx512bf16', productUnit: 'avx512-bf16',
      shape: { batchSize: 1, numHeads: 128, numKvHeads: 1, headDim: 512, seqLenQ: 1, seqLenK: 4096, causal: true, slidingWindow: null, pageSize: 64, mlaLatentDim: 576 },
      samplesNs: Array(20).fill(1e6), medianNs: 1.2e6, p10Ns: 0.426e6, p90Ns: 15.97e6,
      gflops: 268, gbps: 1.28, fractionOfPeak: 0.335, ceiling: 'AVX512-BF16 peak', bound: 'compute', maxAbsErr: 1.3e-3, lseMaxAbsErr: 5.3e-7,
    };
    const text = formatCases([wide]);
    const lines = text.split('\n');
    assert.ok(Math.max(...lines.map((l) => l.length)) <= 100, text);
    assert.ok(formatCases([wide], Infinity).split('\n')[0]!.length > 100, 'the case is wide');
    // Every cell of the full-width row is in some part: a split that dropped a column would miss one.
    const full = formatCases([wide], Infinity).split('\n')[2]!.split(/ {2,}/);
    for (const cell of full) assert.ok(text.includes(cell.trim()), `"${cell}" is not printed`);
    for (const figure of ['noisy 37.5x', '268 GFLOP/s', '34%', 'AVX512-BF16 peak (compute-bound)', '1.3e-3', '5.3e-7', 'avx512bf16']) assert.ok(text.includes(figure), figure);
    // Each part's rows start with the kernel and its shape.
    const rows = lines.filter((l) => l.startsWith('paged_decode'));
    assert.ok(rows.length >= 2, text);
    for (const r of rows) assert.match(r, /^paged_decode +B=1 ctx=4096 H=128\/1 /);
  });
});

describe('the spread of few samples', () => {
  // Nearest rank (runner/measure.ts sampleStats) over 4 samples: p10 is rank ceil(0.4) = 1, the
  // minimum, and p90 rank ceil(3.6) = 4, the maximum; over 10, p90 is rank 9, not the maximum.
  const slow = sampleStats([4e6, 1e6, 3e6, 2e6]);
  const ten = sampleStats([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((x) => x * 1e6));
  const few: KernelCase = { ...base, samplesNs: [4e6, 1e6, 3e6, 2e6], ...slow };
  const many: KernelCase = { ...base, samplesNs: Array.from({ length: 10 }, (_, i) => (i + 1) * 1e6), ...ten };
  const environment: Environment = { os: 'linux', arch: 'x64', cpuModel: 'AMD EPYC', cpuCores: 2, simd: 'avx2', cpuFeatures: [], threads: 2, nodeVersion: 'v22', toolVersion: '0.1.0' };

  it('is min–max under 10 samples, where nearest-rank p10 and p90 are the extremes, and p10–p90 from 10', () => {
    assert.deepEqual([slow.p10Ns, slow.p90Ns], [1e6, 4e6]);
    assert.deepEqual([ten.p10Ns, ten.p90Ns], [1e6, 9e6]);
    assert.equal(spreadName(9), 'min–max');
    assert.equal(spreadName(10), 'p10–p90');
  });

  it('the table gives each case its n and calls a 4-sample spread min–max', () => {
    const [header, , a] = formatCases([few], Infinity).split('\n');
    assert.match(header!, / n +median ms +min–max ms /);
    assert.match(a!, / 4 +2\.50 +1\.00-4\.00 /);
    const [mixedHeader, , b, c] = formatCases([few, many], Infinity).split('\n');
    assert.match(mixedHeader!, / n +median ms +p10–p90 ms /);
    assert.match(b!, / 4 +2\.50 +1\.00-4\.00 \(min–max\) /);
    assert.match(c!, / 10 +5\.50 +1\.00-9\.00 /);
    assert.doesNotMatch(c!, /min–max/);
  });

  it('the caption names the spread and the timing rule', () => {
    const text = casesCaption({ cases: [few, many], environment });
    assert.match(text, /median and p10–p90, min–max where n < 10 of each case's n samples/);
    assert.match(text, /each case timed until 30 samples and 0\.2 s, at most 2 s/);
    assert.match(casesCaption({ cases: [many], environment }), /median and p10–p90 of each case's n samples \(each/);
  });
});

describe('casesCaption', () => {
  const env: Environment = { os: 'linux', arch: 'x64', cpuModel: 'AMD EPYC', cpuCores: 2, simd: 'avx512', cpuFeatures: [], threads: 2, nodeVersion: 'v22', toolVersion: '0.1.0', peaks: { fp32FlopsPerSec: 1.5e11, readBytesPerSec: 4e10 } };
  // 2e8 FLOP over 1e8 bytes: 2 FLOP/byte, below the ridge 1.5e11 / 4e10 = 3.75.
  const decode: KernelCase = { ...base, kernel: 'paged_decode', simdPath: 'avx512', productUnit: 'fp32-fma', bytes: 1e8, gbps: 20, fractionOfPeak: 0.5, ceiling: 'DRAM read bandwidth', bound: 'memory' };

  it('says the figures are measured, where, and each peak its % divides by with its value', () => {
    const text = casesCaption({ cases: [{ ...base, productUnit: 'fp32-fma', ceiling: 'fp32 FMA peak' }, decode], environment: env });
    assert.match(text, /^Kernel timings, measured on this CPU \(AMD EPYC, 2 threads\)/);
    // The run's own peaks, as measured: 1.5e11 FLOP/s and 4e10 B/s.
    assert.match(text, /% of peak: rate \/ the roof that bounds the case \(roofline\): its compute peak where its FLOP\/byte reaches the ridge point, peak \/ bandwidth \(fp32 FMA peak: 3\.75 FLOP\/byte\), else the bandwidth; each named beside it \(fp32 FMA peak 150 GFLOP\/s, measured in this run; DRAM read bandwidth 40 GB\/s, measured in this run\)$/);
    assert.match(text, /bytes \(K \+ V \+ Q in their dtypes \+ O in fp32\) of the shape/);
    // An MLA decode case: the caption says its bytes are the latent read once.
    const mla = casesCaption({ cases: [{ ...decode, shape: { ...decode.shape, mlaLatentDim: 576 } }], environment: env });
    assert.match(mla, /bytes \(K \+ V \+ Q in their dtypes \+ O in fp32; MLA decode: the latent, kv_lora_rank \+ qk_rope_head_dim values a token, read once, in place of K \+ V\) of the shape/);
  });

  it('holds a CUDA case against the GPU, its FLOP peak said to be computed, not the CPU\'s', () => {
    const gpuEnv: Environment = { ...env, gpu: { name: 'NVIDIA H200', smCount: 132, memoryBytes: 150e9, driver: '1', runtime: '1' }, peaks: { ...env.peaks, gpuFlopsPerSec: 9.89e14, gpuCopyBytesPerSec: 4e12 } };
    const text = casesCaption({ cases: [{ ...base, backend: 'cuda' }, { ...decode, backend: 'cuda', simdPath: undefined, productUnit: undefined }], environment: gpuEnv });
    assert.match(text, /measured on NVIDIA H200/);
    assert.match(text, /GPU bf16 peak \(from clocks\) 989 TFLOP\/s, computed; GPU copy bandwidth 4 TB\/s, measured in this run/);
    assert.doesNotMatch(text, /fp32 FMA|DRAM/);
  });
});

describe('formatEstimate parameters line', () => {
  it('counts MoE active parameters one way, says which, and gives the count with the embedding beside it', () => {
    // DeepSeek-V3: 671,026,419,200 total; active 36,625,618,432 without the 129,280 · 7,168 =
    // 926,679,040 input-embedding lookup (the report's "37B activated"), 37,552,297,472 with it.
    const ds = formatEstimate(estimate(profileFromModelConfig(loadModel('DeepSeek-V3'), null)), 'ds');
    assert.match(ds, /parameters\s+671,026,419,200 total, 36,625,618,432 active per token without the input embedding \(37,552,297,472 with it\)/);
    // Mixtral-8x7B: 12,748,853,248 without the 32,000 · 4,096 = 131,072,000 lookup; its card's
    // 12.9B is the 12,879,925,248 with it. The same words for both families.
    const mx = formatEstimate(estimate(profileFromModelConfig(loadModel('Mixtral-8x7B-v0.1'), null)), 'mx');
    assert.match(mx, /46,702,792,704 total, 12,748,853,248 active per token without the input embedding \(12,879,925,248 with it\)/);
  });
});

describe('formatEstimate weights line', () => {
  it('on one GPU is the weights one GPU holds, the editor hint\'s figure: an fp8 MLA checkpoint plus its bf16 kv_b_proj copies (s46: it printed the checkpoint alone, 627 GiB, beside a note saying the copies were in it)', () => {
    // DeepSeek-V3 fp8: checkpoint 672,987,104,256 B = 626.77 GiB; the bf16 copies of kv_b_proj's halves
    // vLLM makes in process_weights_after_loading, inside the load vLLM's "Model loading took" measures:
    // 61 layers · kv_lora_rank 512 · 128 heads · (128 + 128) · 2 B = 2,046,820,352 B = 1.91 GiB;
    // together 675,033,924,608 B = 628.67 GiB -> "629 GiB".
    const ds = formatEstimate(estimate(profileFromModelConfig(loadModel('DeepSeek-V3'), null)), 'ds');
    assert.match(ds, /\n {2}weights {11}629 GiB \(checkpoint 627 GiB \+ 1\.91 GiB bf16 kv_b_proj copies\)\n/);
    // Without copies or offload the line is the one figure, as before: Llama-3.1-8B bf16 16,060,522,496 B = 15 GiB.
    const llama = formatEstimate(estimate(profileFromModelConfig(loadModel('Meta-Llama-3-8B'), null)), 'l');
    assert.match(llama, /\n {2}weights {11}15 GiB\n/);
  });
});

describe('formatEstimate on an encoder', () => {
  it('names no KV dtype on the header of a model without a KV cache', () => {
    const text = formatEstimate(estimate(profileFromModelConfig(loadModel('bert-base-uncased'), null)), 'bert');
    const [header] = text.split('\n');
    assert.match(header!, /, weights \w+, no KV cache$/);
    assert.doesNotMatch(header!, /KV (bf16|fp16|fp32|fp8)/);
    assert.match(text, /KV cache +none: an encoder keeps no KV cache/);
  });
});

describe('formatEstimate KV pool under tensor parallelism', () => {
  it('gives the pool as the capacity of the TP group, never as tokens per GPU to multiply', () => {
    const base = profileFromModelConfig(loadModel('Llama-3.1-70B'), null);
    const profile = { ...base, device: { ...base.device, tensorParallelSize: 4 }, kvCache: { ...base.kvCache, memoryGib: 10 } };
    // Per GPU: 80 layers · (8 KV heads ÷ 4) · 128 head_dim · 2 (K, V) · 2 B = 81,920 B per token;
    // a page of 16 tokens 1,310,720 B; a 10 GiB budget holds 10,737,418,240 / 1,310,720 = 8,192
    // pages = 131,072 tokens, on each GPU the same tokens (their other KV heads): 131,072 in all.
    const text = formatEstimate(estimate(profile), 'l70', { tensorParallelSize: 4 });
    const line = text.split('\n').find((l) => l.startsWith('  KV pool'))!;
    assert.equal(line, '  KV pool           8,192 pages = 131,072 tokens, the capacity of all 4 GPUs together: each holds 2 of the 8 KV heads of every one of these tokens (not 4 × 131,072)');
    // An empty pool (the weights leave no room) is no capacity to explain: no "(not 4 × 0)" (s48 newcomer L6).
    const empty = formatEstimate(estimate({ ...profile, kvCache: { ...profile.kvCache, memoryGib: 0.001 } }), 'l70', { tensorParallelSize: 4 });
    assert.equal(empty.split('\n').find((l) => l.startsWith('  KV pool'))!, '  KV pool           0 pages = 0 tokens');
  });

  it('splits the weights per GPU as (checkpoint − what every GPU holds whole) ÷ tp + that + the kv_b_proj copies, so the figures add up (s47 newcomer LOW-4)', () => {
    const base = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
    const profile = { ...base, device: { ...base.device, tensorParallelSize: 8 }, kvCache: { ...base.kvCache, memoryGib: 10 } };
    const e = estimate(profile);
    const line = formatEstimate(e, 'ds', { tensorParallelSize: 8 }).split('\n').find((l) => l.startsWith('  weights'))!;
    // Was "627 GiB in all, 79.5 GiB per GPU", and 8 × 79.5 = 636 ≠ 627. What every GPU holds whole (norms, routers,
    // q_a_proj, kv_a_proj_with_mqa: 1,138,371,584 B = 1.06 GiB, tp-weights.test) is shown as itself, not as the 950 MiB
    // it adds beyond a 1/8 share (s48 newcomer L1): (627 − 1.06) ÷ 8 + 1.06 + the 1.91 GiB of bf16 kv_b_proj copies
    // ÷ 8 = 244 MiB: 78.2 + 1.06 + 0.24 = 79.5 GiB.
    assert.equal(line, '  weights           627 GiB in all, 79.5 GiB per GPU ((627 GiB − 1.06 GiB) ÷ 8 + 1.06 GiB replicated on every GPU + 244 MiB bf16 kv_b_proj copies)');
    assert.equal(e.replicated!.wholeBytes, 1_138_371_584);
    const replicated = e.weightsBytesPerGpu - Math.ceil(e.weightsBytes / 8) - e.kvBProjCopiesBytesPerGpu!;
    assert.ok(replicated > 940 * 2 ** 20 && replicated < 960 * 2 ** 20, String(replicated));
  });

  it('says per GPU for both the naive S+P and the flash workspace', () => {
    const base = profileFromModelConfig(loadModel('Llama-3.1-70B'), null);
    const profile = { ...base, device: { ...base.device, tensorParallelSize: 8 }, kvCache: { ...base.kvCache, memoryGib: 10 } };
    const text = formatEstimate(estimate(profile), 'l70', { tensorParallelSize: 8 });
    const line = text.split('\n').find((l) => l.startsWith('  attention at N='))!;
    // Llama-3.1-70B has 64 query heads, 8 per GPU at tp 8: naive S and P at N = 131,072 take
    // 2 · 8 heads · 131,072² · 2 B = 512 GiB per layer on each GPU (all 64 heads: 4 TiB).
    assert.match(line, /naive S\+P 512 GiB per layer per GPU vs flash .* per GPU$/);
  });

  it('says per case what each GPU holds: the whole MLA latent, or one KV head replicated when tp > H_kv', () => {
    const poolLine = (model: string, tp: number) => {
      const base = profileFromModelConfig(loadModel(model), null);
      const profile = { ...base, device: { ...base.device, tensorParallelSize: tp }, kvCache: { ...base.kvCache, memoryGib: 10 } };
      const text = formatEstimate(estimate(profile), model, { tensorParallelSize: tp });
      return { kv: text.split('\n').find((l) => l.startsWith('  KV per token'))!, pool: text.split('\n').find((l) => l.startsWith('  KV pool'))! };
    };
    // DeepSeek-V3, MLA: 61 layers · (512 + 64) · 2 B = 70,272 B per token on every GPU, not ÷ 8.
    const ds = poolLine('DeepSeek-V3', 8);
    assert.match(ds.kv, /\(70,272 B;/);
    assert.match(ds.pool, /: each holds the whole MLA latent \(kv_lora_rank \+ qk_rope_head_dim: tensor parallelism does not split it\) of every one of these tokens \(not 8 × /);
    // Llama-3.1-70B at TP 16 on 8 KV heads: max(1, 8 // 16) = 1 head per GPU, each head on 2 GPUs:
    // 80 · 1 · 128 · 2 · 2 B = 40,960 B per token per GPU, as at TP 8.
    const l70 = poolLine('Llama-3.1-70B', 16);
    assert.match(l70.kv, /\(40,960 B;/);
    assert.match(l70.pool, /: each holds 1 of the 8 KV heads \(16 GPUs on 8 KV heads: vLLM replicates them\) of every one of these tokens \(not 16 × /);
  });
});

// s51 newcomer (a) 1-3: an ATTNSCOPE_SIMD the kernels ignored was silent; a forced narrower path's peak did not say its loop.
describe('formatRun and ATTNSCOPE_SIMD', () => {
  const withEnv = (extra: Partial<Environment>) => {
    const r = structuredClone(fixtureRun);
    r.environment = { ...r.environment!, ...extra };
    return formatRun(r).split('\n');
  };
  it('prints the warning of an ignored ATTNSCOPE_SIMD on its own line before the paths line', () => {
    const warning = "ATTNSCOPE_SIMD=amx ignored: this CPU's paths: scalar, avx2, avx512, avx512bf16";
    const lines = withEnv({ simdOverride: { value: 'amx', applied: false, warning } });
    const at = lines.indexOf(`warning: ${warning}`);
    assert.ok(at > 0, lines.slice(0, 6).join('\n'));
    assert.match(lines[at + 1]!, /^CPU kernels' paths: /);
    assert.ok(!withEnv({}).some((l) => l.startsWith('warning: ATTNSCOPE_SIMD')));
  });
  it('names the loop of the fp32 FMA peak when ATTNSCOPE_SIMD forced avx2, and only then', () => {
    const forced = withEnv({ simd: 'avx2', simdOverride: { value: 'AVX2', applied: true }, peaks: { fp32FlopsPerSec: 1.95e11 } });
    assert.match(forced[0]!, /peaks: fp32 FMA 195 GFLOP\/s \(avx2 loop, as ATTNSCOPE_SIMD=AVX2\)/);
    const auto = withEnv({ simd: 'avx2', peaks: { fp32FlopsPerSec: 1.95e11 } });
    assert.match(auto[0]!, /peaks: fp32 FMA 195 GFLOP\/s$/);
  });
});

// s50 newcomer-ed 15: decode B=1 ctx=1024 read ~71 % of the DRAM read peak: its 4 MiB sit in the L3 after the first call.
describe('a decode case within the last-level cache (CLI table and notes)', () => {
  // The fixture's decode case: B=1 ctx=1024 H=32/8 D=128 bf16, bytes 4,218,880 (K + V 4 MiB + Q 8 KiB + O 16 KiB) = 4.02 MiB.
  // The table's part with the rate and % of peak (past 100 columns it is stacked in parts, each repeating the case).
  const decodeRow = (text: string): string => text.split('\n').find((line) => line.startsWith('paged_decode') && line.includes('GB/s'))!;

  it('with a 32 MiB L3: its % of peak says "(from cache)" and a note says why; its GB/s stays', () => {
    const withL3 = { ...fixtureRun, environment: { ...fixtureRun.environment!, lastLevelCache: { level: 3, bytes: 33_554_432 } } };
    const text = formatRun(withL3);
    // fractionOfPeak 0.3189 -> "32%"; gbps 10.65 -> "10.7 GB/s", as without the cache.
    assert.match(decodeRow(text), /10\.7 GB\/s +32% \(from cache\) +DRAM read bandwidth/);
    assert.match(text, /^note: paged_decode B=1 ctx=1024 H=32\/8 D=128 page=16: from cache: reads 4\.02 MiB, within the 32 MiB L3; not a DRAM figure$/m);
    // The prefill case (compute-bound) is not marked.
    assert.doesNotMatch(text.split('\n').filter((line) => line.startsWith('flash_fwd')).join('\n'), /from cache/);
  });

  it('a case of 64 MiB with that L3 is not marked, nor one with the cache unknown', () => {
    const l3 = { level: 3, bytes: 33_554_432 };
    // B=16: 16 x 4,218,880 = 67,502,080 B (64.4 MiB) > 33,554,432.
    const big = { ...fixtureRun, environment: { ...fixtureRun.environment!, lastLevelCache: l3 }, cases: fixtureRun.cases.map((c) => (c.kernel === 'paged_decode' ? { ...c, bytes: 67_502_080 } : c)) };
    assert.doesNotMatch(formatRun(big), /from cache/);
    // The fixture's environment has no lastLevelCache (sysfs listed none): no claim.
    assert.equal(fixtureRun.environment!.lastLevelCache, undefined);
    assert.doesNotMatch(formatRun(fixtureRun), /from cache/);
    assert.match(decodeRow(formatRun(fixtureRun)), / 32% +DRAM read bandwidth/);
  });

  it('with no cache known, a case whose pages read alone came at 2.5x a DRAM read timed with them is marked by that rate', () => {
    // A DRAM read of 31,500,000,000 B/s; read alone at 2.5 x that = 78,750,000,000 B/s (78.8 GB/s) > 1.5x.
    const rated = { ...fixtureRun, cases: fixtureRun.cases.map((c) => (c.kernel === 'paged_decode' ? { ...c, bytes: 67_502_080, readAloneBytesPerSec: 78_750_000_000, dramReadBytesPerSec: 31_500_000_000 } : c)) };
    const text = formatRun(rated);
    assert.match(decodeRow(text), / 32% \(from cache\) +DRAM read bandwidth/);
    assert.match(text, /^note: paged_decode B=1 ctx=1024 H=32\/8 D=128 page=16: from cache: its pages read alone came at 2\.5x a DRAM read \(78\.8 GB\/s against 31\.5 GB\/s, one thread each\); not a DRAM figure$/m);
    // At 1.2x (37,800,000,000 B/s): a 128 MiB case came at up to 1.29x, so no claim.
    const dram = { ...rated, cases: rated.cases.map((c) => (c.kernel === 'paged_decode' ? { ...c, readAloneBytesPerSec: 37_800_000_000 } : c)) };
    assert.doesNotMatch(formatRun(dram), /from cache/);
  });
});
