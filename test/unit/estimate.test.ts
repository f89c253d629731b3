import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, type Profile } from '../../core/config/index';
import {
  activationPeakBytes,
  maxNumBatchedTokensOf,
  maxNumSeqsOf,
  attentionWorkspace,
  estimate,
  kvBytesForSequence,
  kvBytesPerToken,
  kvBytesPerTokenPerLayer,
  paramCounts,
  poolPages,
  poolSizeProblem,
  quantizedWidthText,
  routedExpertBytes,
  weightsBytes,
} from '../../core/estimate/index';
import { formatConcurrency } from '../../core/format';
import { configNames, fixtureText, loadModel } from './helpers';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

/**
 * KV bytes per token, all layers, K and V, 2-byte elements (bf16, or fp16 for the Llama-2
 * checkpoints; gemma-2's float32 checkpoint is served in bf16). Hand calculations:
 * L · 2 · H_kv · head_dim · 2, MLA: L · (kv_lora_rank + qk_rope_head_dim) · 2.
 */
const KV_BYTES_PER_TOKEN: Record<string, number> = {
  'DeepSeek-V3': 70_272, //         61 · (512 + 64) · 2               (MLA, no factor 2; shared README)
  'Llama-2-70b-hf': 327_680, //     80 · 2 · 8 · 128 · 2
  'Llama-2-7b-hf': 524_288, //      32 · 2 · 32 · 128 · 2             (8 MiB per 16-token page, README)
  'Llama-3.1-405B': 516_096, //     126 · 2 · 8 · 128 · 2
  'Llama-3.1-70B': 327_680, //      80 · 2 · 8 · 128 · 2
  'Llama-3.1-8B': 131_072, //       32 · 2 · 8 · 128 · 2              (README ground truth)
  'Llama-3.2-3B': 114_688, //       28 · 2 · 8 · 128 · 2              (explicit head_dim 128 = 3072 / 24)
  'Meta-Llama-3-8B': 131_072, //    32 · 2 · 8 · 128 · 2
  'Mixtral-8x7B-v0.1': 131_072, //  32 · 2 · 8 · 128 · 2              (experts do not touch the cache)
  'Qwen2-7B': 57_344, //            28 · 2 · 4 · 128 · 2
  'Qwen2.5-3B': 36_864, //          36 · 2 · 2 · 128 · 2
  'Qwen2.5-7B': 57_344, //          28 · 2 · 4 · 128 · 2              (README ground truth)
  'Qwen3-30B-A3B': 98_304, //       48 · 2 · 4 · 128 · 2              (head_dim 128 ≠ 2048 / 32 = 64)
  'Qwen3-8B': 147_456, //           36 · 2 · 8 · 128 · 2
  'bert-base-uncased': 0, //        encoder: no KV cache
  'gemma-2-9b': 344_064, //         42 · 2 · 8 · 256 · 2              (head_dim 256 ≠ 3584 / 16 = 224)
  'gpt-oss-120b': 73_728, //        36 · 2 · 8 · 64 · 2               (DESIGN.md; every layer charged)
  'gpt-oss-20b': 49_152, //         24 · 2 · 8 · 64 · 2
  'gpt2-large': 184_320, //         36 · 2 · 20 · 64 · 2              (n_layer, n_head, n_embd 1280 / 20)
  'gpt2': 36_864, //                12 · 2 · 12 · 64 · 2
};

test('the KV table covers every shipped config', () => {
  const names = configNames();
  assert.deepEqual(names, Object.keys(KV_BYTES_PER_TOKEN).sort());
});

for (const [name, expected] of Object.entries(KV_BYTES_PER_TOKEN)) {
  test(`kvBytesPerToken ${name} = ${expected}`, () => {
    const model = loadModel(name);
    assert.equal(kvBytesPerToken(model, 'bf16'), expected);
    assert.equal(kvBytesPerTokenPerLayer(model, 'bf16') * model.numLayers, expected);
    // The estimate of the default profile agrees (the config's dtype; float32 -> bf16).
    assert.equal(estimate(profileFromModelConfig(model, null)).kvBytesPerToken, expected);
  });
}

test('fp8_e4m3 KV halves a bf16 cache: Llama-3.1-8B 32 · 2 · 8 · 128 · 1 = 65,536', () => {
  assert.equal(kvBytesPerToken(loadModel('Llama-3.1-8B'), 'fp8_e4m3'), 65_536);
  // MLA with fp8: 61 · 576 · 1.
  assert.equal(kvBytesPerToken(loadModel('DeepSeek-V3'), 'fp8_e4m3'), 35_136);
});

test('tensor parallelism splits KV heads, replicates them past H_kv, and leaves MLA alone', () => {
  const llama70 = loadModel('Llama-3.1-70B');
  assert.equal(kvBytesPerToken(llama70, 'bf16', 4), 81_920); // 80 · 2 · (8 / 4) · 128 · 2
  assert.equal(kvBytesPerToken(llama70, 'bf16', 16), 40_960); // 80 · 2 · max(1, 8 / 16) · 128 · 2
  assert.equal(kvBytesPerToken(loadModel('DeepSeek-V3'), 'bf16', 8), 70_272); // latent not sharded
});

test('sliding-window layers hold at most the window; every layer is still charged per token', () => {
  const oss = loadModel('gpt-oss-120b');
  // 18 full layers · 8192 + 18 sliding layers · 128 = 149,760 token-layers, · 2·8·64·2 = 2048 B.
  assert.equal(kvBytesForSequence(oss, 8192, 'bf16'), 149_760 * 2048);
  // Shorter than the window: every layer holds all 100 tokens.
  assert.equal(kvBytesForSequence(oss, 100, 'bf16'), 36 * 100 * 2048);
  // gemma-2: 21 global · 8192 + 21 local · 4096 = 258,048 token-layers · 2·8·256·2 = 8192 B.
  assert.equal(kvBytesForSequence(loadModel('gemma-2-9b'), 8192, 'bf16'), 258_048 * 8192);
  // Qwen2 carries sliding_window 131072 with use_sliding_window false: nothing slides.
  assert.equal(kvBytesForSequence(loadModel('Qwen2-7B'), 32_768, 'bf16'), 32_768 * 57_344);
});

function llamaProfile(change: (p: Profile) => void): Profile {
  const p = profileFromModelConfig(loadModel('Llama-3.1-8B'), null);
  change(p);
  return p;
}

test('vLLM ground truth: Llama-3.1-8B bf16, page 16, 3.8125 GiB budget -> 1952 pages of 2 MiB', () => {
  // vLLM start-up log (shared README): "kv_cache_size=3.81GiB", "GPU blocks: 1952".
  const e = estimate(llamaProfile((p) => { p.kvCache.memoryGib = 3.8125; }));
  assert.equal(e.pageBytes, 2 * MiB); // 16 · 131,072
  assert.equal(e.pageBytesPerLayer, 64 * 1024); // 16 · 4096
  assert.equal(e.pool.budgetBytes, 4_093_640_704); // 3.8125 · 2^30
  assert.equal(e.pool.pages, 1952);
  assert.equal(e.pool.tokens, 1952 * 16);
  assert.equal(e.pool.budgetSource, 'explicit');
  assert.equal(e.pool.activationPeakBytes, 0);
  assert.equal(poolPages(3.8125 * GiB, 2 * MiB), 1952);
});

test('an explicit kv_cache.memory_gib below one page is that key\'s problem, with the smallest budget that holds a page (s52 newcomer: it said "no GPU is set")', () => {
  // Llama-3.1-8B bf16: a 16-token page is 16 · 131,072 B = 2 MiB = 0.001953125 GiB, rounded up to
  // three digits 0.00196; 0.001 GiB = 1,073,741.8 B = 1.024 MiB, printed "1.02 MiB". Page 32: 4 MiB, 0.00391.
  for (const [pageSize, page, bound] of [[16, '2 MiB', '0.00196'], [32, '4 MiB', '0.00391']] as const) {
    const p = llamaProfile((q) => { q.kvCache.memoryGib = 0.001; q.kvCache.pageSize = pageSize; });
    const problem = poolSizeProblem(p)!;
    assert.equal(problem.message, `kv_cache.memory_gib 0.001 (1.02 MiB) holds no page of ${page} (${pageSize} tokens): raise it to at least ${bound}, one page`);
    assert.equal(problem.keys[0], 'kv_cache.memory_gib');
    // The bound holds a page: the message's own remedy works.
    assert.equal(poolSizeProblem(llamaProfile((q) => { q.kvCache.memoryGib = Number(bound); q.kvCache.pageSize = pageSize; })), null);
  }
});

test('vLLM ground truth: Llama-2-7B fp16 page of 16 tokens is 8 MiB', () => {
  const e = estimate(profileFromModelConfig(loadModel('Llama-2-7b-hf'), null));
  assert.equal(e.model.dtype, 'fp16');
  assert.equal(e.pageBytes, 8 * MiB);
});

test('pool from device memory: 80 GiB · 0.9 − weights − activation peak − non-torch memory', () => {
  const e = estimate(llamaProfile((p) => { p.device.memoryGib = 80; }));
  // Current vLLM's non-torch increase during profiling: 0.1 GiB at tensor_parallel_size 1 (reserve.ts).
  const nonTorch = Math.round(0.1 * GiB);
  const weights = 8_030_261_248 * 2;
  const activation = activationPeakBytes(loadModel('Llama-3.1-8B'), 'bf16', 8192, 1024);
  // 80 GiB: vLLM's defaults on a >= 70 GiB GPU that is not an A100, max_num_batched_tokens 8192 and
  // max_num_seqs 1024 (arg_utils.py get_batch_defaults). The larger of the forward phase, 8192
  // tokens · 2 B · (2·4096 + max((32 + 16)·128 + 32·128, 3·14336 + 4096)) = 905,969,664, and the
  // sampler phase over 1024 rows, 8192 · 2 · 4096 + 3 · 1024 · 128256 · 4 = 1,643,118,592.
  assert.equal(activation, 1_643_118_592);
  assert.ok(e.pool.reserve.some((t) => t.key === 'activation' && /max_num_batched_tokens 8,192 \(vLLM's default on a >= 70 GiB GPU\), max_num_seqs 1,024 \(vLLM's default on a >= 70 GiB GPU\)/.test(t.basis)));
  assert.equal(e.weightsBytes, weights);
  assert.equal(e.pool.budgetSource, 'device');
  assert.equal(e.pool.activationPeakBytes, activation);
  assert.equal(e.pool.engineReserveBytes, nonTorch);
  assert.equal(e.pool.budgetBytes, Math.floor(80 * GiB * 0.9) - weights - activation - nonTorch);
  assert.equal(e.pool.pages, Math.floor(e.pool.budgetBytes / (2 * MiB)));
  // Max concurrency at max_position_embeddings 131072 = 8192 pages a sequence, as vLLM divides.
  assert.equal(e.pool.concurrencySeqLen, 131_072);
  assert.equal(e.pool.maxConcurrency, e.pool.pages / 8192);
  assert.equal(e.pool.sequencesAtOnce, Math.floor(e.pool.pages / 8192));
});

test('activation peak and weights against vLLM\'s own profile of Meta-Llama-3-8B on an H100', () => {
  // vLLM PR #10511 (memory profiling overhaul), `vllm serve meta-llama/Meta-Llama-3-8B`:
  // "model weights take 14.96GiB", "PyTorch activation peak memory 1.26GiB" (max_num_batched_tokens
  // 8192 = max_model_len, max_num_seqs 256). The two-phase model gives the forward phase,
  // 8192 · 2 · (2·4096 + 3·14336 + 4096) = 905,969,664 B = 0.84 GiB: 0.42 GiB under the log, 0.8%
  // of that H100's 53.29 GiB KV budget (reserve.test.ts holds the budget within 5%). The same
  // model on an A10 at vLLM's 2048 gives 0.38 GiB where the log says 0.22: the term is held to the
  // budgets it decides, not exactly to each log's figure.
  const m = loadModel('Meta-Llama-3-8B');
  assert.equal(Math.round(weightsBytes(m, 'bf16') / GiB * 100) / 100, 14.96);
  assert.equal(activationPeakBytes(m, 'bf16', 8192, 256), 905_969_664);
  const activation = activationPeakBytes(m, 'bf16', 8192, 256) / GiB;
  assert.ok(Math.abs(activation - 1.26) < 0.01 * 53.29, `activation ${activation.toFixed(3)} GiB`);
});

test("max_num_seqs and max_num_batched_tokens default as vLLM's get_batch_defaults picks them for the device", () => {
  // vllm/engine/arg_utils.py EngineArgs.get_batch_defaults, `vllm serve` (OPENAI_API_SERVER):
  // device memory >= 70 GiB and "a100" not in the name -> 8192 tokens, 1024 sequences; else 2048, 256.
  const on = (change: (p: Profile) => void) => { const p = llamaProfile(change); return [maxNumBatchedTokensOf(p), maxNumSeqsOf(p)]; };
  assert.deepEqual(on((p) => { p.device.gpu = 'H100 SXM'; }), [8192, 1024]); // 80e9 B = 74.5 GiB
  assert.deepEqual(on((p) => { p.device.gpu = 'H200'; }), [8192, 1024]);
  assert.deepEqual(on((p) => { p.device.gpu = 'A100 80GB'; }), [2048, 256]); // >= 70 GiB, but an A100 (PR #17885)
  assert.deepEqual(on((p) => { p.device.gpu = 'L40S'; }), [2048, 256]); // CUDA total 44.31 GiB
  assert.deepEqual(on((p) => { p.device.memoryGib = 24; }), [2048, 256]);
  assert.deepEqual(on((p) => { p.device.memoryGib = 80; }), [8192, 1024]);
  // No device: taken as the H100 the step-time model assumes.
  assert.deepEqual(on(() => {}), [8192, 1024]);
  // A defaulted max_num_seqs is capped at max_num_batched_tokens (min(max_num_seqs, max_num_batched_tokens)).
  const wl = { requests: 1, arrivalRate: 1, promptLen: { dist: 'fixed' as const, value: 1 }, outputLen: { dist: 'fixed' as const, value: 1 }, maxModelLen: 8192 };
  assert.deepEqual(on((p) => { p.device.gpu = 'H100 SXM'; p.workload = { ...wl, maxNumBatchedTokens: 512 }; }), [512, 512]);
  // Written values win.
  assert.deepEqual(on((p) => { p.device.gpu = 'H100 SXM'; p.workload = { ...wl, maxNumSeqs: 64 }; }), [8192, 64]);
});

test('explicit num_pages wins; no memory at all sizes nothing and says so', () => {
  const fixed = estimate(llamaProfile((p) => { p.kvCache.numPages = 100; }));
  assert.equal(fixed.pool.pages, 100);
  assert.equal(fixed.pool.budgetBytes, 100 * 2 * MiB);
  const none = estimate(llamaProfile(() => {}));
  assert.equal(none.pool.budgetSource, 'none');
  assert.equal(none.pool.pages, 0);
  assert.ok(none.notes.some((n) => /not sized/.test(n)));
});

test('weights that do not fit leave no pool, and a note says why', () => {
  const e = estimate(profileFromModelConfig(loadModel('Llama-3.1-70B'), null), {});
  assert.equal(e.pool.pages, 0);
  const tight = profileFromModelConfig(loadModel('Llama-3.1-70B'), null);
  tight.device.memoryGib = 80;
  const t = estimate(tight);
  assert.equal(t.pool.pages, 0);
  assert.equal(t.pool.budgetBytes, 0);
  assert.ok(t.notes.some((n) => /no room for a KV cache/.test(n)));
  tight.device.tensorParallelSize = 4;
  assert.ok(estimate(tight).pool.pages > 0);
});

test('max concurrency as vLLM divides (pages / pages per sequence), whole sequences beside it', () => {
  // 1952 pages; a 1000-token sequence needs ceil(1000 / 16) = 63 pages: 1952 / 63 = 30.98x, 30 at once.
  const e = estimate(llamaProfile((p) => { p.kvCache.memoryGib = 3.8125; }), { seqLen: 1000 });
  assert.equal(e.pool.maxConcurrency, 1952 / 63);
  assert.equal(formatConcurrency(e.pool.maxConcurrency), '30.98x');
  assert.equal(e.pool.sequencesAtOnce, 30);
  // vLLM's A10 log for Llama-3.1-8B: "# CUDA blocks: 2356", "Maximum concurrency for 131072 tokens
  // per request: 0.29x" (2356 / 8192 = 0.2876): below one sequence, which a floor would hide.
  const a10 = estimate(llamaProfile((p) => { p.kvCache.numPages = 2356; }), { seqLen: 131_072 });
  assert.equal(formatConcurrency(a10.pool.maxConcurrency), '0.29x');
  assert.equal(a10.pool.sequencesAtOnce, 0);
  // s47 newcomer LOW-1: grouped as "56,248 whole sequences" is beside it (device memory_gib 1000000): 56248.9634 -> "56,248.96x"; 999.999 rounds to 1000.00 -> "1,000.00x".
  assert.equal(formatConcurrency(56248.9634), '56,248.96x');
  assert.equal(formatConcurrency(999.999), '1,000.00x');
});

test('encoders have no KV cache: 0 bytes, 0 pages, a flag and a note', () => {
  const p = profileFromModelConfig(loadModel('bert-base-uncased'), null);
  p.device.memoryGib = 16;
  const e = estimate(p);
  assert.equal(e.hasKvCache, false);
  assert.equal(e.kvBytesPerToken, 0);
  assert.equal(e.pageBytes, 0);
  assert.equal(e.pool.pages, 0);
  assert.equal(e.pool.maxConcurrency, 0);
  assert.ok(e.notes.some((n) => /encoder/.test(n)));
  p.kvCache.numPages = 100;
  assert.equal(estimate(p).pool.pages, 0);
});

test('attention workspace: naive 2·B·H·N²·bytes vs flash 3·B·H·N·4', () => {
  // Llama-3.1-8B at 8192 tokens, bf16: 2 · 1 · 32 · 8192² · 2 = 8 GiB per layer; flash 3 MiB.
  const w = attentionWorkspace(1, 32, 8192, 8192, 'bf16');
  assert.equal(w.naiveBytes, 8 * GiB);
  assert.equal(w.flashBytes, 3 * MiB);
  const e = estimate(llamaProfile(() => {}), { seqLen: 8192, batchSize: 2 });
  assert.equal(e.attention.naiveBytes, 16 * GiB);
  assert.equal(e.attention.seqLen, 8192);
  // Tensor parallelism 4 on Llama-3.1-70B (64 query heads): each GPU computes 64 / 4 = 16 heads,
  // 2 · 1 · 16 · 4096² · 2 B = 1 GiB per layer (all 64 heads would be 4 GiB); flash 3 · 16 · 4096 · 4 = 768 KiB.
  const tp = profileFromModelConfig(loadModel('Llama-3.1-70B'), null);
  tp.device.tensorParallelSize = 4;
  const sharded = estimate(tp, { seqLen: 4096, batchSize: 1 });
  assert.equal(sharded.attention.naiveBytes, 1 * GiB);
  assert.equal(sharded.attention.flashBytes, 768 * 1024);
});

/**
 * Exact parameter counts, hand-calculated from the shapes (see paramCounts' doc):
 * Llama-3.1-8B: embed 128256·4096 = 525,336,576, ×2 untied; per layer q,o 4096² ×2 +
 * k,v 4096·1024 ×2 = 41,943,040, MLP 3·4096·14336 = 176,160,768, norms 8192 -> 218,112,000
 * ×32 = 6,979,584,000; + final norm 4096 -> 8,030,261,248 (HF safetensors: 8.03B).
 */
test('paramCounts Llama-3.1-8B: exactly 8,030,261,248', () => {
  const p = paramCounts(loadModel('Llama-3.1-8B'));
  assert.equal(p.total, 8_030_261_248);
  assert.equal(p.active, p.total);
  assert.equal(p.breakdown.lmHead, 525_336_576);
});

test('paramCounts GPT-2: 124,439,808 (ties lm_head by default, learned positions, biases, LayerNorm)', () => {
  // wte 50257·768 = 38,597,376; wpe 1024·768 = 786,432; per layer 12·768² + 13·768 = 7,087,872
  // ×12 = 85,054,464; ln_f 1536 -> 124,439,808.
  const p = paramCounts(loadModel('gpt2'));
  assert.equal(p.total, 124_439_808);
  assert.equal(p.breakdown.lmHead, 0);
});

test('paramCounts Mixtral-8x7B: 46,702,792,704 total, 12,748,853,248 active without the input embedding', () => {
  // Per layer: attention 41,943,040 + 8 experts · 176,160,768 + router 4096·8 + norms 8192
  // = 1,451,270,144 ×32 + embeddings 2 · 131,072,000 + 4096; active keeps 2 of 8 experts:
  // 12,879,925,248, less the 32000 · 4096 = 131,072,000 input-embedding lookup.
  const p = paramCounts(loadModel('Mixtral-8x7B-v0.1'));
  assert.equal(p.total, 46_702_792_704);
  assert.equal(p.active, 12_748_853_248);
});

test('paramCounts gpt-oss-20b: 20,914,757,184 total; 3,608,307,264 active without the input embedding', () => {
  // Per layer: q 2880·4096+4096, k,v 2880·512+512 each, o 4096·2880+2880, sinks 64 = 26,550,144;
  // expert (biased SwiGLU) 2880·5760+5760 + 2880·2880+2880 = 24,891,840, ×32; router 2880·32+32;
  // norms 5760 -> 823,186,976 ×24 + embed, unembed 2 · 579,133,440 + 2880.
  const p = paramCounts(loadModel('gpt-oss-20b'));
  assert.equal(p.total, 20_914_757_184);
  assert.equal(p.active, 3_608_307_264);
  // What a token multiplies by: the same (lm_head untied, so nothing to add back).
  assert.equal(p.activeCompute, 3_608_307_264);
});

test('activeCompute leaves embedding lookups out and counts a tied lm_head: dense models too', () => {
  // Llama-3.1-8B: 8,030,261,248 − the 525,336,576 lookup table (lm_head is separate).
  assert.equal(paramCounts(loadModel('Llama-3.1-8B')).activeCompute, 8_030_261_248 - 525_336_576);
  // GPT-2 ties lm_head to wte: the 38,597,376-entry matrix is multiplied once per token; the
  // 786,432 learned positions are only looked up: 124,439,808 − 786,432.
  assert.equal(paramCounts(loadModel('gpt2')).activeCompute, 124_439_808 - 786_432);
  // MoE active is the same count for every family (lm_head untied: nothing to add back).
  for (const name of ['Mixtral-8x7B-v0.1', 'Qwen3-30B-A3B', 'DeepSeek-V3', 'gpt-oss-120b']) {
    const p = paramCounts(loadModel(name));
    assert.equal(p.active, p.activeCompute, name);
  }
});

test('estimate --json carries the active parameters with the input embedding, the figure the text prints beside paramsActive (s50 newcomer LOW-4)', () => {
  // Qwen3-30B-A3B: 3,041,867,776 active without the embedding + the 151,936 · 2,048 = 311,164,928 table = 3,353,032,704
  // (the card's "3.3B activated"); dense Llama-3.1-8B: all 8,030,261,248.
  const qwen = estimate(profileFromModelConfig(loadModel('Qwen3-30B-A3B'), null));
  assert.equal(qwen.paramsActive, 3_041_867_776);
  assert.equal(qwen.paramsActiveWithEmbedding, 3_041_867_776 + 151_936 * 2_048);
  assert.equal(estimate(profileFromModelConfig(loadModel('Llama-3.1-8B'), null)).paramsActiveWithEmbedding, 8_030_261_248);
});

/**
 * Published counts, each within 1% unless noted. `active` is counted one way for every family
 * (without the input-embedding lookup, as OpenAI and DeepSeek count); where a card adds the
 * embedding (Mistral, Qwen: cardCountsEmbedding) the card's figure is held against active plus
 * the embedding, the "with it" figure the CLI prints beside it.
 */
const PUBLISHED: Array<{ name: string; total: number; active?: number; activeTol?: number; cardCountsEmbedding?: boolean; source: string }> = [
  { name: 'Llama-3.1-8B', total: 8.03e9, source: 'HF model page, safetensors: 8.03B params' },
  { name: 'Llama-3.1-70B', total: 70.6e9, source: 'HF model page, safetensors: 70.6B params' },
  { name: 'Llama-3.1-405B', total: 405e9, source: 'Llama 3.1 model card: 405B' },
  { name: 'Llama-3.2-3B', total: 3.21e9, source: 'HF model page, safetensors: 3.21B params' },
  { name: 'Llama-2-7b-hf', total: 6.74e9, source: 'HF model page, safetensors: 6.74B params' },
  { name: 'Llama-2-70b-hf', total: 69.0e9, source: 'HF model page, safetensors: 69B params' },
  { name: 'Mixtral-8x7B-v0.1', total: 46.7e9, active: 12.9e9, cardCountsEmbedding: true, source: 'Mistral, "Mixtral of experts" (2023): 46.7B total, 12.9B per token' },
  { name: 'Qwen2.5-7B', total: 7.61e9, source: 'Qwen2.5-7B model card: 7.61B' },
  { name: 'Qwen2.5-3B', total: 3.09e9, source: 'Qwen2.5-3B model card: 3.09B' },
  { name: 'Qwen3-8B', total: 8.2e9, source: 'Qwen3-8B model card: 8.2B' },
  // Card: 30.5B total, 3.3B activated, "29.9B non-embedding": the card counts the embedding. Our
  // active count with it is 3,353,032,704 (3.35B; 3.04B without): the card truncates, so 2%.
  { name: 'Qwen3-30B-A3B', total: 30.5e9, active: 3.3e9, activeTol: 0.02, cardCountsEmbedding: true, source: 'Qwen3-30B-A3B model card' },
  // Paper: 671B total, 37B activated; our 36.63B leaves the 0.93B embedding lookup out (37.55B
  // with it), the paper rounds to whole billions: 2%.
  { name: 'DeepSeek-V3', total: 671e9, active: 37e9, activeTol: 0.02, source: 'DeepSeek-V3 technical report, abstract' },
  // gpt-oss model card, table 1: 116.83B total, 5.13B active (the input embedding left out).
  { name: 'gpt-oss-120b', total: 116.83e9, active: 5.13e9, source: 'gpt-oss model card (OpenAI, 2025), table 1' },
  { name: 'gpt-oss-20b', total: 20.91e9, active: 3.61e9, source: 'gpt-oss model card (OpenAI, 2025), table 1' },
  { name: 'gemma-2-9b', total: 9.24e9, source: 'HF model page, safetensors: 9.24B params' },
  { name: 'gpt2', total: 124e6, source: 'HF gpt2 model card: 124M parameters' },
  { name: 'gpt2-large', total: 774e6, source: 'HF gpt2-large model card: 774M parameters' },
  { name: 'bert-base-uncased', total: 110e6, source: 'Devlin et al. 2019 (BERT), §3: BERT-BASE 110M' },
];

for (const c of PUBLISHED) {
  test(`paramCounts ${c.name} within 1% of the published ${c.total / 1e9}B (${c.source})`, () => {
    const p = paramCounts(loadModel(c.name));
    const rel = (x: number, y: number) => Math.abs(x - y) / y;
    assert.ok(rel(p.total, c.total) < 0.01, `total ${p.total} vs ${c.total}`);
    if (c.active !== undefined) {
      const counted = c.cardCountsEmbedding ? p.active + p.breakdown.embedding : p.active;
      assert.ok(rel(counted, c.active) < (c.activeTol ?? 0.01), `active ${counted} vs ${c.active}`);
      // Without the embedding, a card that counts it is missed by more than its tolerance: the
      // convention is one, and the "with it" figure is what such a card quotes.
      if (c.cardCountsEmbedding) assert.ok(rel(p.active, c.active) >= (c.activeTol ?? 0.01), `${c.name}: ${p.active}`);
    } else {
      assert.equal(p.active, p.total);
    }
  });
}

test('weights bytes follow quantization_config: DeepSeek-V3 fp8 linears, gpt-oss mxfp4 experts', () => {
  const ds = loadModel('DeepSeek-V3');
  const dsp = paramCounts(ds);
  const b = dsp.breakdown;
  const linear = b.attention + b.mlp + b.experts + b.sharedExperts;
  assert.equal(weightsBytes(ds, 'bf16'), linear + (dsp.total - linear) * 2);
  const oss = loadModel('gpt-oss-120b');
  const op = paramCounts(oss);
  assert.equal(weightsBytes(oss, 'bf16'), Math.ceil(op.breakdown.experts * 4.25 / 8) + (op.total - op.breakdown.experts) * 2);
  // OpenAI: gpt-oss-120b fits a single 80 GB GPU (about 61 GiB of weights).
  assert.ok(weightsBytes(oss, 'bf16') < 65 * GiB);
  assert.equal(weightsBytes(loadModel('Llama-3.1-8B'), 'fp32'), 8_030_261_248 * 4);
});

test('AWQ / GPTQ / compressed-tensors weights: counted tensor by tensor as vLLM allocates them (s34 newcomer-cli finding 3)', () => {
  // Llama-3.1-8B with hugging-quants' Meta-Llama-3.1-8B-Instruct-AWQ-INT4 quantization_config. By hand:
  // per layer the linear weights are 4096·(4096 + 1024 + 1024 + 4096) + 3·4096·14336 = 218,103,808,
  // 32 layers 6,979,321,856; every K is a multiple of 128, so groups are 1/128 of the weights.
  // vLLM awq.py: qweight 4 bits = 3,489,660,928 B, scales fp16 per group = 6,979,321,856 / 64 =
  // 109,051,904 B, qzeros 4 bits per group = / 256 = 27,262,976 B; embedding and lm_head
  // (untied, unquantized) 2 · 128256 · 4096 · 2 B = 2,101,346,304, norms 65 · 4096 · 2 = 532,480.
  // Sum 5,727,854,592 B (5.33 GiB; the checkpoint's safetensors are 5.73 GB); the flat
  // 4 + 32/128 bits gave 5,809,643,520.
  const llama = JSON.parse(fixtureText('Llama-3.1-8B')) as Record<string, unknown>;
  const withQ = (quantization_config: object) => readModelConfig(JSON.stringify({ ...llama, quantization_config })).value!;
  const awq = withQ({ quant_method: 'awq', bits: 4, group_size: 128, zero_point: true, version: 'gemm', modules_to_not_convert: null });
  assert.equal(weightsBytes(awq, 'fp16'), 5_727_854_592);
  assert.equal(quantizedWidthText(awq), '4.16 bits a weight (4-bit, fp16 scale and 4-bit zero per 128 inputs)');
  // GPTQ adds g_idx (gptq.py: one int32 per input of each layer): 32 · (6 · 4096 + 14336) · 4 = 4,980,736 B.
  const gptq = { quant_method: 'gptq', bits: 4, desc_act: false, sym: true, checkpoint_format: 'gptq' };
  assert.equal(weightsBytes(withQ({ ...gptq, group_size: 128 }), 'fp16'), 5_727_854_592 + 4_980_736);
  // group_size -1: one scale and zero per output of each layer: 32 · (4096 · 3 + 1024 · 2 + 14336 · 2) = 1,376,256
  // columns · (2 + 0.5) B = 3,440,640, + 4-bit weights, g_idx and the unquantized rest: 5,599,961,088 (not 4.25 bits' 5.41 GiB).
  assert.equal(weightsBytes(withQ({ ...gptq, group_size: -1 }), 'fp16'), 3_489_660_928 + 3_440_640 + 4_980_736 + 2_101_346_304 + 532_480);
  // modules_to_not_convert ["mlp"] (vLLM is_layer_skipped: a substring of the layer's name): the MLPs stay fp16,
  // 32 · 3 · 4096 · 14336 · 2 B = 11,274,289,152; attention 1,342,177,280 weights · (0.5 + 1/64 + 1/256) B = 697,303,040.
  assert.equal(weightsBytes(withQ({ quant_method: 'awq', bits: 4, group_size: 128, zero_point: true, modules_to_not_convert: ['mlp'] }), 'fp16'),
    697_303_040 + 11_274_289_152 + 2_101_346_304 + 532_480);
  // GPTQ lm_head: true quantizes lm_head too ([4096, 128256]: 4 bits + (2 + 0.5) B per 128 · 128256 + g_idx 4 · 4096).
  const lmHead = 128_256 * 4096 / 2 + 32 * 128_256 * 2.5 + 4096 * 4;
  assert.equal(weightsBytes(withQ({ ...gptq, group_size: 128, lm_head: true }), 'fp16'), 5_732_835_328 - 128_256 * 4096 * 2 + lmHead);
  // compressed-tensors W4A16 symmetric: no zero points: 3,489,660,928 + 109,051,904 + the rest.
  const ct = withQ({ quant_method: 'compressed-tensors', format: 'pack-quantized', ignore: ['lm_head'], config_groups: { group_0: { targets: ['Linear'], weights: { num_bits: 4, type: 'int', symmetric: true, strategy: 'group', group_size: 128 } } } });
  assert.equal(weightsBytes(ct, 'fp16'), 3_489_660_928 + 109_051_904 + 2_101_346_304 + 532_480);
});

test('bitsandbytes NF4 with double quant and ModelOpt NVFP4 weights of Llama-3.1-8B', () => {
  // The 6,979,321,856 linear weights (above) at 4 + 8/64 + 32/(64·256) bits (QLoRA §3):
  // ceil(6,979,321,856 · 4.126953125 / 8) = 3,600,416,768 B, + embedding, lm_head and norms in bf16
  // 1,050,939,392 · 2 = 2,101,878,784: 5,702,295,552 B, 5.70 GB (4.5 bits, the old figure: 6,027,747,328).
  const llama = JSON.parse(fixtureText('Llama-3.1-8B')) as Record<string, unknown>;
  const withQ = (quantization_config: object) => readModelConfig(JSON.stringify({ ...llama, quantization_config })).value!;
  const bnb = withQ({ quant_method: 'bitsandbytes', load_in_4bit: true, load_in_8bit: false, bnb_4bit_quant_type: 'nf4', bnb_4bit_use_double_quant: true, bnb_4bit_compute_dtype: 'bfloat16' });
  assert.equal(weightsBytes(bnb, 'bf16'), 5_702_295_552);
  assert.equal(quantizedWidthText(bnb), '4.13 bits a weight (4-bit, 8.125-bit (double-quantized) scale per 64 inputs)');
  // llm_int8_skip_modules (vLLM is_layer_skipped_bnb: a dotted component or prefix of the name): "model.layers.0.mlp"
  // keeps layer 0's MLP, 3 · 4096 · 14336 = 176,160,768 weights, in bf16: 352,321,536 B instead of
  // 176,160,768 · 4.126953125 / 8 = 90,875,904: + 261,445,632. "mlp" (a component) keeps every layer's.
  const skipped = (skip: string[]) => weightsBytes(withQ({ quant_method: 'bitsandbytes', load_in_4bit: true, bnb_4bit_use_double_quant: true, llm_int8_skip_modules: skip }), 'bf16');
  assert.equal(skipped(['lm_head', 'model.layers.0.mlp']), 5_702_295_552 + 261_445_632);
  assert.equal(skipped(['mlp']), 5_702_295_552 + 32 * 261_445_632);
  assert.equal(skipped(['model.layers.0.ml']), 5_702_295_552); // neither a component nor a dotted prefix
  // LLM.int8(): int8 weights and an fp32 SCB per output row: 6,979,321,856 + 4 · 32 · (4096 + 1024 + 1024 + 4096
  // + 14336 + 14336 + 4096) = 6,984,826,880 B, + 2,101,878,784: 9,086,705,664 (the flat 8 bits: 9,081,200,640).
  assert.equal(weightsBytes(withQ({ quant_method: 'bitsandbytes', load_in_8bit: true }), 'bf16'), 9_086_705_664);
  // nvidia's NVFP4 config.json form: 6,979,321,856 · 4.5 / 8 = 3,925,868,544 + 2,101,878,784 = 6,027,747,328
  // (before: quant_method modelopt not read, every weight bf16: 16,060,522,496).
  const fp4 = withQ({ quant_method: 'modelopt', quant_algo: 'NVFP4', group_size: 16, ignore: ['lm_head'], kv_cache_scheme: null });
  assert.equal(weightsBytes(fp4, 'bf16'), 6_027_747_328);
  assert.equal(quantizedWidthText(fp4), '4.5 bits a weight (4-bit, fp8 scale per 16 inputs)');
  // Excluded layers stay bf16 (vLLM modelopt.py is_layer_excluded: substring or fnmatch): layer 0's
  // 218,103,808 linear weights at 2 B = 436,207,616 instead of · 4.5 / 8 = 122,683,392: + 313,524,224.
  assert.equal(weightsBytes(withQ({ quant_method: 'modelopt', quant_algo: 'NVFP4', ignore: ['lm_head', 'model.layers.0.*'] }), 'bf16'), 6_341_271_552);
  // hf_quant_config.json's form, exclude_modules. Without lm_head there vLLM still loads lm_head in bf16:
  // modelopt.py ModelOptQuantConfigBase.get_quant_method quantizes LinearBase and FusedMoE only and returns
  // None for ParallelLMHead (a VocabParallelEmbedding), which then takes UnquantizedEmbeddingMethod. So the
  // same 6,027,747,328 B, not 5,272,576,000 (lm_head's 128256 · 4096 weights at 4.5 bits).
  assert.equal(weightsBytes(withQ({ quant_method: 'modelopt', quantization: { quant_algo: 'NVFP4', group_size: 16, exclude_modules: [] } }), 'bf16'), 6_027_747_328);
});

test('flat formats honour their skip lists as vLLM does: fp8 / fbgemm_fp8 by full name, ModelOpt FP8 by substring or fnmatch, compressed-tensors FP8 ignore', () => {
  // Llama-3.1-8B: 6,979,321,856 linear weights at 1 B + the rest (embedding, lm_head, norms) 1,050,939,392 · 2 B:
  // 9,081,200,640 B with no skip list. Layer 0's linear weights: 4096 · (4096 + 1024 + 1024 + 4096) = 41,943,040
  // attention + 3 · 4096 · 14336 = 176,160,768 MLP = 218,103,808; skipped, each costs 2 B instead of 1.
  const llama = JSON.parse(fixtureText('Llama-3.1-8B')) as Record<string, unknown>;
  const bytes = (quantization_config: object) => weightsBytes(readModelConfig(JSON.stringify({ ...llama, quantization_config })).value!, 'bf16');
  const layer0 = ['q_proj', 'k_proj', 'v_proj', 'o_proj'].map((p) => `model.layers.0.self_attn.${p}`)
    .concat(['gate_proj', 'up_proj', 'down_proj'].map((p) => `model.layers.0.mlp.${p}`));
  assert.equal(bytes({ quant_method: 'fp8', activation_scheme: 'dynamic' }), 9_081_200_640);
  // vLLM fp8.py Fp8Config: ignored_layers, else modules_to_not_convert; quant_utils.is_layer_skipped compares full
  // names (the qkv_proj / gate_up_proj shards each by its own name). Was ignored: 9,081,200,640.
  assert.equal(bytes({ quant_method: 'fp8', activation_scheme: 'dynamic', ignored_layers: layer0 }), 9_081_200_640 + 218_103_808);
  assert.equal(bytes({ quant_method: 'fp8', activation_scheme: 'dynamic', modules_to_not_convert: ['lm_head', ...layer0] }), 9_081_200_640 + 218_103_808);
  // A name that is only a prefix skips nothing there (no skip_with_substr).
  assert.equal(bytes({ quant_method: 'fp8', activation_scheme: 'dynamic', modules_to_not_convert: ['model.layers.0.mlp'] }), 9_081_200_640);
  // fbgemm_fp8 (meta-llama's FP8 checkpoints: attention kept in bf16): FBGEMMFp8Config reads modules_to_not_convert,
  // matched the same way. Every layer's 4 attention projections: 32 · 41,943,040 = 1,342,177,280 B more.
  const attention = Array.from({ length: 32 }, (_, i) => ['q_proj', 'k_proj', 'v_proj', 'o_proj'].map((p) => `model.layers.${i}.self_attn.${p}`)).flat();
  assert.equal(bytes({ quant_method: 'fbgemm_fp8', activation_scale_ub: 1200.0, modules_to_not_convert: attention }), 9_081_200_640 + 1_342_177_280);
  // A multimodal checkpoint's names (model.language_model.layers...) are the text model's (vLLM apply_vllm_mapper).
  assert.equal(bytes({ quant_method: 'fp8', activation_scheme: 'dynamic', ignored_layers: layer0.map((n) => n.replace('model.', 'model.language_model.')) }), 9_081_200_640 + 218_103_808);
  // ModelOpt FP8 (ModelOptQuantConfigBase.is_layer_excluded, as NVFP4's): a substring or an fnmatch wildcard;
  // "model.layers.0.mlp*" keeps layer 0's MLP, 176,160,768 B more.
  assert.equal(bytes({ quant_method: 'modelopt', quant_algo: 'FP8', ignore: ['lm_head', 'model.layers.0.mlp*'] }), 9_081_200_640 + 176_160_768);
  assert.equal(bytes({ quant_method: 'modelopt', quantization: { quant_algo: 'FP8', exclude_modules: ['lm_head', 'model.layers.0.mlp'] } }), 9_081_200_640 + 176_160_768);
  // compressed-tensors FP8 (W8A8 per-tensor): `ignore` names exactly or by "re:" (re.match).
  const fp8 = { num_bits: 8, type: 'float', symmetric: true, strategy: 'tensor', dynamic: false };
  const ct = (ignore: string[]) => bytes({ quant_method: 'compressed-tensors', format: 'float-quantized', ignore, config_groups: { group_0: { targets: ['Linear'], weights: fp8 } } });
  assert.equal(ct(['lm_head']), 9_081_200_640);
  assert.equal(ct(['lm_head', 're:.*self_attn.*']), 9_081_200_640 + 1_342_177_280);
});

test('fp8 skip list on a MoE: a listed expert keeps its whole FusedMoE layer unquantized (vLLM is_layer_skipped, experts)', () => {
  // Qwen3-30B-A3B: 128 experts of [2048, 768] gate / up / down per layer: 128 · 3 · 2048 · 768 = 603,979,776 weights.
  // vLLM builds one FusedMoE per layer (model.layers.3.mlp.experts); is_layer_skipped skips it when a listed name
  // with "experts" in it contains that prefix, so one listed expert keeps all 128 in bf16: 603,979,776 B more.
  const qwen = JSON.parse(fixtureText('Qwen3-30B-A3B')) as Record<string, unknown>;
  const model = (ignored_layers: string[]) => readModelConfig(JSON.stringify({ ...qwen, quantization_config: { quant_method: 'fp8', activation_scheme: 'dynamic', weight_block_size: [128, 128], ignored_layers } })).value!;
  const base = weightsBytes(model([]), 'bf16');
  assert.equal(weightsBytes(model(['model.layers.3.mlp.experts.0.gate_proj']), 'bf16'), base + 603_979_776);
  assert.equal(routedExpertBytes(model(['model.layers.3.mlp.experts.0.gate_proj']), 'bf16'), routedExpertBytes(model([]), 'bf16') + 603_979_776);
  // Layer 30's listed expert keeps layer 30's 128 alone (the prefix model.layers.3.mlp.experts is no substring of it).
  assert.equal(weightsBytes(model(['model.layers.30.mlp.experts.0.gate_proj']), 'bf16'), base + 603_979_776);
  assert.equal(weightsBytes(model(['model.layers.3.mlp.gate']), 'bf16'), base); // the router is not counted as quantized
});

test('notes write their counts through core/format (thousands separators), as every other figure', () => {
  // gemma-2-9b: sliding_window 4096 on alternate layers, max_position_embeddings 8192.
  // Current vLLM (hybrid KV-cache manager): the sliding groups hold 4,096 − 1 + 8,192 = 12,287 tokens at most.
  const e = estimate(profileFromModelConfig(loadModel('gemma-2-9b'), null));
  const note = e.notes.find((n) => n.startsWith('vLLM >= 0.9.0 hybrid'));
  assert.match(note ?? '', /an 8,192-token request reserves .* = 12,287 tokens\)/);
  // vLLM 0.8: every layer charged; the note says what the sequence needs and what the pool reserves.
  const old = profileFromModelConfig(loadModel('gemma-2-9b'), null);
  old.engine = { vllmVersion: '0.8.5', nonTorchGib: 'auto', ncclGib: 'auto', cudaGraphGib: 'auto', activationGib: 'auto' };
  const oldNote = estimate(old).notes.find((n) => n.startsWith('sliding-window layers'));
  assert.match(oldNote ?? '', /^sliding-window layers keep at most 4,096 tokens: an 8,192-token sequence needs .* vLLM < 0\.9\.0/);
});
