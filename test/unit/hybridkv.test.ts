/**
 * vLLM's hybrid KV-cache manager (vLLM >= 0.9) for models with full-attention and sliding-window
 * layers, against hand calculations from vLLM's own formulas (vllm/v1/kv_cache_interface.py
 * FullAttentionSpec / SlidingWindowSpec.max_memory_usage_bytes, vllm/v1/core/kv_cache_utils.py
 * get_kv_cache_config_from_groups, get_max_concurrency_for_kv_cache_config,
 * check_enough_kv_cache_memory, _report_kv_cache_config); and the MLP-width constraint on
 * tensor_parallel_size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { profileFromModelConfig, readModelConfig, readProfile, type Profile } from '../../core/config/index';
import { checkProfile, DEFAULT_ENGINE, estimate } from '../../core/estimate/index';
import { fixtureText, loadModel } from './helpers';
import { stopSimulations } from '../../native/simulator';
import { formatPoolSummary, simulatePool, type SimulateOptions } from '../../runner/simulate/index';
import { formatEstimate } from '../../runner/table';
import { SCOUT } from '../fixtures/llama4';

const GIB = 1024 ** 3;

function profile(name: string, change: (p: Profile) => void = () => {}): Profile {
  const p = profileFromModelConfig(loadModel(name), `/m/${name}/config.json`);
  change(p);
  return p;
}

/** kv_cache.memory_gib 8 (an explicit budget, so no reserve model enters), page_size 16, optionally an engine.vllm_version. */
const eightGib = (version: string | null) => (p: Profile): void => {
  p.kvCache.memoryGib = 8;
  p.kvCache.pageSize = 16;
  if (version !== null) p.engine = { ...DEFAULT_ENGINE, vllmVersion: version };
};

test('gpt-oss-120b, vLLM >= 0.9: pool, max concurrency and the start-up check per layer type', () => {
  // 36 layers alternating sliding (window 128) / full: 18 + 18, so 2 KV-cache groups of 18 layers.
  // Per layer per token 2 · 8 KV heads · 64 · 2 B = 2,048 B; a block = 18 · 16 · 2,048 = 589,824 B.
  // Budget 8 GiB = 8,589,934,592 B -> floor(/ 589,824) = 14,563 blocks.
  // max_model_len 131,072 (max_position_embeddings), max_num_batched_tokens 8,192 (no device: the >= 70 GiB default).
  // A request: full group ceil(131,072 / 16) = 8,192 blocks; sliding group
  // ceil(min(128 − 1 + 8,192, 131,072) / 16) + 1 = ceil(8,319 / 16) + 1 = 520 + 1 = 521 -> 8,713 blocks.
  // Max concurrency 14,563 / 8,713 = 1.6714; the start-up check needs 8,713 · 589,824 = 5,139,136,512 B
  // = 4.79 GiB < 8 GiB, so vLLM starts. "GPU KV cache size": floor(14,563 / 2 groups) · 16 = 116,496 tokens.
  const e = estimate(profile('gpt-oss-120b', eightGib(null)));
  assert.equal(e.pool.layout.kind, 'hybrid');
  assert.equal(e.pageBytes, 589_824);
  assert.equal(e.pool.pages, 14_563);
  assert.equal(e.pool.blocksPerSeq, 8_713);
  assert.equal(e.pool.seqNeededBytes, 5_139_136_512);
  assert.ok(Math.abs(e.pool.maxConcurrency - 14_563 / 8_713) < 1e-12);
  assert.equal(e.pool.sequencesAtOnce, 1);
  assert.equal(e.pool.tokens, 116_496);
  const p = profile('gpt-oss-120b', eightGib(null));
  assert.deepEqual(checkProfile(p, estimate(p)).map((x) => x.code), []);
});

test('gpt-oss-120b, vLLM 0.8.5: every layer charged, as before the hybrid manager, and vLLM refuses to start', () => {
  // A block covers all 36 layers: 16 · 73,728 B = 1,179,648 B; 8 GiB -> 7,281 blocks; a request
  // 8,192 blocks = 9 GiB > 8 GiB: concurrency 7,281 / 8,192 = 0.889, and the start-up check fails.
  const p = profile('gpt-oss-120b', eightGib('0.8.5'));
  const e = estimate(p);
  assert.equal(e.pool.layout.kind, 'uniform');
  assert.equal(e.pageBytes, 1_179_648);
  assert.equal(e.pool.pages, 7_281);
  assert.ok(Math.abs(e.pool.maxConcurrency - 7_281 / 8_192) < 1e-12);
  const problems = checkProfile(p, e);
  // And no 0.8.5 served gpt-oss (vLLM 0.10.1 was the first): the layout is for comparison only.
  assert.deepEqual(problems.map((x) => x.code), ['pool-below-max-model-len', 'vllm-predates-model']);
  // The table's three significant digits, "9 GiB" (8,192 blocks × 1,179,648 B = 9 GiB exactly), not vLLM's "9.00 GiB" (s47 newcomer).
  assert.match(problems[0]!.message, /One sequence needs 9 GiB of KV cache \(8,192 pages\)/);
});

test('gpt-oss-120b on one H100 SXM: vLLM starts, 1.70x (newcomer A finding 5)', () => {
  // The device budget is the estimate's (8.14 GiB here); whatever it is, blocks = floor(budget / 589,824)
  // and the concurrency is blocks / 8,713. The newcomer's hand figures: about 14,818 blocks, 1.70x, 4.79 GiB needed.
  const p = profile('gpt-oss-120b', (x) => { x.device.gpu = 'H100 SXM'; });
  const e = estimate(p);
  assert.equal(e.pool.pages, Math.floor(e.pool.budgetBytes / 589_824));
  assert.ok(Math.abs(e.pool.pages - 14_818) <= 2, String(e.pool.pages));
  assert.equal(e.pool.maxConcurrency.toFixed(2), '1.70');
  assert.equal((e.pool.seqNeededBytes / GIB).toFixed(2), '4.79');
  assert.ok(!checkProfile(p, e).some((x) => x.code === 'pool-below-max-model-len'));
});

test('gemma-2-9b at max_model_len 8,192: the sliding group reserves a whole sequence plus one block', () => {
  // 42 layers, 21 sliding (window 4,096) + 21 full; head_dim 256, 8 KV heads: 8,192 B per layer per
  // token; block = 21 · 16 · 8,192 = 2,752,512 B. A request: full ceil(8,192 / 16) = 512; sliding
  // ceil(min(4,095 + 8,192, 8,192) / 16) + 1 = 513 -> 1,025 blocks (no saving at 8k: the window plus
  // one step's tokens cover the whole sequence). 8 GiB -> floor(8,589,934,592 / 2,752,512) = 3,120 blocks;
  // 3,120 / 1,025 = 3.0439.
  const e = estimate(profile('gemma-2-9b', eightGib(null)));
  assert.equal(e.pageBytes, 2_752_512);
  assert.equal(e.pool.blocksPerSeq, 1_025);
  assert.equal(e.pool.pages, 3_120);
  assert.ok(Math.abs(e.pool.maxConcurrency - 3_120 / 1_025) < 1e-12);
});

test('a model without sliding-window layers keeps one group whatever the vLLM version', () => {
  // Llama-3.1-8B: block = 32 · 16 · 4,096 B = 2 MiB; 8 GiB -> 4,096 blocks; 131,072 tokens -> 8,192 blocks: 0.5x.
  const e = estimate(profile('Llama-3.1-8B', eightGib(null)));
  assert.equal(e.pool.layout.kind, 'uniform');
  assert.equal(e.pool.pages, 4_096);
  assert.equal(e.pool.maxConcurrency, 0.5);
});

test('semantic: tensor_parallel_size must divide the MLP widths (Qwen2.5-7B at 28: intermediate_size 18,944)', () => {
  const file = '/w/qwen/config.json';
  const read = (tp: number) => readProfile(`model: ./qwen/config.json\ndevice:\n  tensor_parallel_size: ${tp}\n`, '/w/p.attn.yaml', { readFile: (abs: string) => (abs === join('/w', 'qwen/config.json') || abs === file ? fixtureText('Qwen2.5-7B') : null) });
  // 28 heads and 4 KV heads admit 1, 2, 4, 28 (7 and 14 do not divide 4 KV heads, nor 4 them);
  // 18,944 = 2^8 · 74 = 2^9 · 37 is not divisible by 28 (= 4 · 7): vLLM's divide() asserts.
  const p = read(28).problems.filter((x) => x.code === 'tp-not-divisible');
  assert.equal(p.length, 1);
  assert.match(p[0]!.message, /does not divide intermediate_size 18,944.*\(tensor_parallel_size values that split this model evenly: 1, 2, 4\)$/);
  assert.match(read(8).problems.find((x) => x.code === 'tp-not-divisible')!.message, /values that split this model evenly: 1, 2, 4\)$/);
  assert.ok(!read(4).problems.some((x) => x.code === 'tp-not-divisible'));
});

test('simulate: a hybrid pool is simulated block by block, every group charged, and says so; an every-layer pool says nothing', async () => {
  // Same 8 GiB budget as above: 14,563 blocks, 1 full-attention + 1 sliding-window group; vLLM's
  // "GPU KV cache size" floor(14,563 / 2) · 16 = 116,496 tokens.
  const opts: SimulateOptions = { stepTime: { perStepS: 1, perTokenS: 0, perKvTokenS: 0 }, watermark: 0, baselines: false, trace: [{ arrivalS: 0, promptLen: 32, outputLen: 2 }] };
  const hybrid = await simulatePool(profile('gpt-oss-120b', eightGib(null)), opts);
  assert.equal(hybrid.numPages, 14_563);
  assert.equal(hybrid.poolBlocks, 14_563);
  assert.equal(hybrid.poolGroups, 2);
  assert.match(hybrid.poolLayout ?? '', /^vLLM's hybrid KV-cache manager \(HybridKVCacheCoordinator\): a block holds 16 tokens of one KV-cache group's 18 layers; 1 full-attention and 1 sliding-window groups take their blocks from the one pool\. .*max\(0, computed − 128 \+ 1\) \.\. computed \+ scheduled − 1 .*a hit is as long as every group has it .*the last 8 sliding-window blocks in a row that are cached \(ceil\(\(128 − 1\) \/ 16\), SlidingWindowManager\)/); // ceil(127 / 16) = 8 blocks (vLLM sliding_window_contiguous_blocks)
  assert.doesNotMatch(hybrid.poolLayout ?? '', /upper bound/);
  // The one request of 32 + 2 tokens: 3 full-attention blocks + 3 sliding-window blocks at its
  // last step (positions 0 .. 33, its window starts at 0), of 14,563.
  assert.equal(hybrid.summary.peakOccupancy, 6 / 14_563);
  assert.equal(hybrid.poolTokens, 116_496);
  const summary = formatPoolSummary(hybrid);
  // The equation adds up: floor(14,563 / 2) × 16 = 116,496.
  assert.match(summary, /^KV pool: 14,563 blocks of 16 tokens in 2 KV-cache groups; floor\(14,563 \/ 2\) × 16 = 116,496 tokens \(vLLM's "GPU KV cache size" divides the blocks by every group\); simulated block by block\n {2}vLLM's hybrid KV-cache manager/m);
  assert.doesNotMatch(summary, /233,008/);
  // vLLM 0.8.5: a block covers all 36 layers, 7,281 of them (above), one page each.
  const uniform = await simulatePool(profile('gpt-oss-120b', eightGib('0.8.5')), opts);
  assert.equal(uniform.numPages, 7_281);
  assert.equal(uniform.poolLayout, undefined);
  // 7,281 blocks · 16 = 116,496 tokens: the same figure, pages × page_size.
  assert.equal(uniform.poolTokens, 116_496);
  assert.match(formatPoolSummary(uniform), /^KV pool: 7,281 pages × 16 tokens = 116,496 tokens$/m);
  await stopSimulations();
});

test('simulate gpt-oss-20b, 2,000 blocks, 20 requests of 8,000 + 2,000 tokens: at most 3 run at once (s28 newcomer finding 2)', async () => {
  // By hand (vLLM's hybrid manager, 1 full-attention + 1 sliding-window group, window 128,
  // page 16): a decoding request of up to 10,000 tokens holds ceil(10,000 / 16) = 625 full-attention
  // blocks and at most ceil((128 − 1 + 1) / 16) + 1 = 9 sliding-window blocks; once their prompts are
  // in, 4 such requests hold at least 4 · (500 + 8) = 2,032 > 2,000 blocks, 3 at most
  // 3 · (625 + 9) = 1,902. Charging only the full-attention group (2,000 pages) ran 4 at once.
  const p = profile('gpt-oss-20b', (x) => {
    x.kvCache.numPages = 2000;
    x.kvCache.pageSize = 16;
  });
  const trace = Array.from({ length: 20 }, () => ({ arrivalS: 0, promptLen: 8000, outputLen: 2000 }));
  const r = await simulatePool(p, { stepTime: { perStepS: 1e-3, perTokenS: 0, perKvTokenS: 0 }, baselines: false, trace });
  assert.equal(r.numPages, 2000);
  assert.equal(r.summary.completed, 20);
  assert.equal(r.summary.peakConcurrency, 3);
  assert.ok(r.summary.peakOccupancy <= 1);
  await stopSimulations();
});

/** gpt-oss-120b with every layer sliding (window 128), as a config whose layer_types lists 36 × "sliding_attention". */
const allSliding = (version: string | null) => (p: Profile): void => {
  eightGib(version)(p);
  p.model = { ...p.model, layerTypes: p.model.layerTypes.map(() => 'sliding' as const) };
};

test('every layer sliding, vLLM >= 0.9.1: one SlidingWindowSpec group, a request reserves window − 1 + max_num_batched_tokens (PR #19029)', async () => {
  // One group of all 36 layers: block = 36 · 16 · 2,048 B = 1,179,648 B; 8 GiB -> floor(8,589,934,592 / 1,179,648) = 7,281 blocks.
  // max_num_batched_tokens 8,192 (no device: the >= 70 GiB default), N = 131,072.
  // SlidingWindowSpec.max_memory_usage_bytes: ceil(min(128 − 1 + 8,192, 131,072) / 16) + 1 = ceil(8,319 / 16) + 1 = 520 + 1 = 521 blocks.
  // get_max_concurrency_for_kv_cache_config: 7,281 / 521 = 13.975 (a pool charging every token: 7,281 / 8,192 = 0.889).
  // "GPU KV cache size": 7,281 // 1 group · 16 = 116,496 tokens; start-up check 521 · 1,179,648 B = 0.57 GiB < 8 GiB.
  const p = profile('gpt-oss-120b', allSliding(null));
  const e = estimate(p);
  assert.equal(e.pool.layout.kind, 'sliding');
  assert.equal(e.pageBytes, 1_179_648);
  assert.equal(e.pool.pages, 7_281);
  assert.equal(e.pool.blocksPerSeq, 521);
  assert.ok(Math.abs(e.pool.maxConcurrency - 7_281 / 521) < 1e-12);
  assert.equal(e.pool.sequencesAtOnce, 13);
  assert.equal(e.pool.tokens, 116_496);
  assert.deepEqual(checkProfile(p, e).map((x) => x.code), []);
  assert.ok(e.notes.some((n) => /reserves 521 blocks/.test(n)), e.notes.join('\n'));
  // The simulation holds the same 7,281 pages and frees the out-of-window ones (it says so).
  const opts: SimulateOptions = { stepTime: { perStepS: 1, perTokenS: 0, perKvTokenS: 0 }, watermark: 0, baselines: false, trace: [{ arrivalS: 0, promptLen: 32, outputLen: 2 }] };
  const sim = await simulatePool(p, opts);
  assert.equal(sim.numPages, 7_281);
  assert.match(sim.poolLayout ?? '', /every layer slides.*pages wholly before a sequence's last 128 tokens are freed/);
  await stopSimulations();
});

test('every layer sliding on a 24 GiB device at max_model_len 16,384: 137 blocks a request (the newcomer\'s case)', () => {
  // < 70 GiB device: max_num_batched_tokens 2,048. ceil(min(127 + 2,048, 16,384) / 16) + 1 = ceil(2,175 / 16) + 1 = 136 + 1 = 137.
  const p = profile('gpt-oss-120b', (x) => {
    allSliding(null)(x);
    x.kvCache.memoryGib = 'auto';
    x.device.memoryGib = 24;
  });
  const e = estimate(p, { seqLen: 16_384 });
  assert.equal(e.pool.blocksPerSeq, 137);
  assert.ok(Math.abs(e.pool.maxConcurrency - e.pool.pages / 137) < 1e-12);
});

test('every layer sliding, vLLM 0.9.0: max concurrency as that release printed it, every token counted', () => {
  // Before PR #19029 vLLM printed blocks · block_size / max_model_len: 7,281 · 16 / 131,072 = 0.889 = 7,281 / 8,192.
  const e = estimate(profile('gpt-oss-120b', allSliding('0.9.0')));
  assert.equal(e.pool.layout.kind, 'uniform');
  assert.ok(Math.abs(e.pool.maxConcurrency - 7_281 / 8_192) < 1e-12);
  assert.match(e.pool.layout.basis, /PR #19029/);
});

test('estimate says what a hybrid block holds and how vLLM\'s log counts tokens; a uniform pool keeps pages = tokens / page_size', () => {
  // 14,563 blocks of 16 tokens × 18 layers (above); the log: floor(14,563 / 2) · 16 = 116,496 tokens.
  const hybrid = formatEstimate(estimate(profile('gpt-oss-120b', eightGib(null))), 'h');
  assert.match(hybrid, /KV pool {11}14,563 blocks of 16 tokens of one KV-cache group's 18 layers: vLLM's log says floor\(14,563 \/ 2 groups\) · 16 = 116,496 tokens/);
  assert.match(hybrid, /max concurrency {3}1\.67x .*\(vLLM's figure: blocks \/ 8,713 blocks a request reserves = 1 full-attention group/);
  // vLLM 0.8.5: 7,281 pages of all 36 layers, 7,281 · 16 = 116,496 tokens.
  assert.match(formatEstimate(estimate(profile('gpt-oss-120b', eightGib('0.8.5'))), 'u'), /KV pool {11}7,281 pages = 116,496 tokens/);
});

test("README's all-sliding sentence: Mistral-7B-v0.1 on an H100 at 32,768 tokens reserves 769 blocks, the window plus a step's tokens, not the window alone", () => {
  // Mistral-7B-v0.1's config.json (huggingface.co/mistralai/Mistral-7B-v0.1): 32 layers, 8 KV heads of 128, sliding_window 4,096
  // on every layer, max_position_embeddings 32,768. H100 SXM: 79.22 GiB >= 70 GiB and not an A100, so
  // max_num_batched_tokens 8,192 (vllm/engine/arg_utils.py get_batch_defaults). SlidingWindowSpec.max_memory_usage_bytes:
  // ceil(min(4,096 − 1 + 8,192, 32,768) / 16) + 1 = ceil(12,287 / 16) + 1 = 768 + 1 = 769 blocks; the window alone
  // would be ceil(4,096 / 16) + 1 = 257.
  const config = JSON.stringify({
    architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
    num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
    max_position_embeddings: 32768, sliding_window: 4096, rope_theta: 10000.0, rms_norm_eps: 1e-5,
    tie_word_embeddings: false, torch_dtype: 'bfloat16', hidden_act: 'silu',
  });
  const r = readModelConfig(config, 'Mistral-7B-v0.1.json');
  assert.ok(r.value, r.problems.map((x) => x.message).join('; '));
  const p = profileFromModelConfig(r.value, '/m/Mistral-7B-v0.1/config.json');
  p.device = { ...p.device, gpu: 'H100 SXM', memoryGib: null };
  eightGib(null)(p);
  const e = estimate(p);
  assert.equal(e.pool.layout.kind, 'sliding');
  assert.equal(e.pool.blocksPerSeq, 769);
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
  assert.match(readme, /every layer slides \(Mistral-7B-v0\.1\) reserves, from vLLM 0\.9\.1 \(PR #19029\), ceil\(min\(window − 1 \+ max_num_batched_tokens, max_model_len\) \/ page_size\) \+ 1 blocks per request/);
  assert.match(readme, /Mistral-7B-v0\.1 on an H100 at 32,768 tokens \(max_num_batched_tokens 8,192\) reserves 769 blocks, 12,287 tokens/);
  assert.doesNotMatch(readme, /reserves its window alone per request/);
});

/** Scout with an explicit 40 GiB KV budget, page_size 16, max_model_len 131,072, max_num_batched_tokens 8,192, and `extra` profile lines. */
function scout(extra = ''): Profile {
  const text = `model: ./scout/config.json\nkv_cache: { memory_gib: 40, page_size: 16 }\nworkload: { max_model_len: 131072, max_num_batched_tokens: 8192 }\n${extra}`;
  const r = readProfile(text, '/w/p.attn.yaml', { readFile: (abs: string) => (abs === join('/w', 'scout/config.json') ? SCOUT : null) });
  assert.deepEqual(r.problems.filter((x) => x.severity === 'error'), []);
  return r.value!;
}

test('Llama-4-Scout, current vLLM: the chunked layers are KV-cache groups of their own (hybrid manager on by default since PR #29627)', () => {
  // 12 NoPE (full) layers, 36 chunked: group size 12 (36 is not under 1.5 · 12), so 1 full-attention +
  // 3 ChunkedLocalAttentionSpec groups, as vLLM PR #21761 lists them. Per layer per token 2 · 8 · 128 · 2 B
  // = 4,096 B; a block = 12 · 16 · 4,096 = 786,432 B. 40 GiB = 42,949,672,960 B -> floor(/ 786,432) = 54,613 blocks.
  // A request of 131,072: full group ceil(131,072 / 16) = 8,192 blocks; each chunked group
  // ceil(min(8,192 + 8,192, 131,072) / 16) = 1,024 (ChunkedLocalAttentionSpec.max_memory_usage_bytes)
  // -> 8,192 + 3 · 1,024 = 11,264 blocks = 8,858,370,048 B. Max concurrency 54,613 / 11,264 = 4.8485 -> "4.85x".
  // "GPU KV cache size": floor(54,613 / 4 groups) · 16 = 218,448 tokens.
  const e = estimate(scout());
  assert.equal(e.pool.layout.kind, 'hybrid');
  assert.deepEqual([e.pool.layout.groupSize, e.pool.layout.fullGroups, e.pool.layout.slidingGroups, e.pool.layout.chunkedGroups, e.pool.layout.chunk], [12, 1, 0, 3, 8192]);
  assert.equal(e.pageBytes, 786_432);
  assert.equal(e.pool.pages, 54_613);
  assert.equal(e.pool.blocksPerSeq, 11_264);
  assert.equal(e.pool.seqNeededBytes, 8_858_370_048);
  assert.ok(Math.abs(e.pool.maxConcurrency - 54_613 / 11_264) < 1e-12);
  assert.equal(e.pool.sequencesAtOnce, 4);
  assert.equal(e.pool.tokens, 218_448);
  const text = formatEstimate(e, 'scout');
  assert.match(text, /KV pool {11}54,613 blocks of 16 tokens of one KV-cache group's 12 layers: vLLM's log says floor\(54,613 \/ 4 groups\) · 16 = 218,448 tokens/);
  assert.match(text, /max concurrency {3}4\.85x for 131,072 tokens per request \(vLLM's figure: blocks \/ 11,264 blocks a request reserves = 1 full-attention group · ceil\(N \/ page_size\) \+ 3 chunked-attention groups · ceil\(min\(8192 \+ 8192, N\) \/ page_size\)\)/);
  assert.doesNotMatch(text, /sliding/);
});

test('Llama-4-Scout on vLLM 0.13.0 (hybrid manager off for chunked local attention, PR #21761): one group, every layer every token', () => {
  // A block covers all 48 layers: 16 · 196,608 B = 3 MiB; 40 GiB -> 13,653 blocks; a request
  // ceil(131,072 / 16) = 8,192 of them: 13,653 / 8,192 = 1.6666 -> "1.67x"; 13,653 · 16 = 218,448 tokens.
  const e = estimate(scout('engine: { vllm_version: "0.13.0" }\n'));
  assert.equal(e.pool.layout.kind, 'uniform');
  assert.equal(e.pool.pages, 13_653);
  assert.equal(e.pool.blocksPerSeq, 8_192);
  assert.equal(e.pool.maxConcurrency, 13_653 / 8_192);
  assert.equal(e.pool.tokens, 218_448);
  assert.match(e.notes.find((n) => n.startsWith('chunked-attention layers')) ?? '', /vLLM < 0\.14\.0 \(engine\.vllm_version 0\.13\.0\) turns the hybrid KV-cache manager off for chunked local attention by default \(PR #21761/);
});

test('simulate Llama-4-Scout: the pool is vLLM\'s 4 groups\' blocks, a chunked group keeps only the current chunk\'s (ChunkedLocalAttentionManager) and the layout says so', async () => {
  // Pool of the estimate above: 54,613 blocks, 4 groups. One request of 32 + 2 tokens holds at its last
  // step ceil(34 / 16) = 3 blocks in the full group and 3 in each chunked group (all in its first chunk): 12.
  const unit: SimulateOptions = { stepTime: { perStepS: 1, perTokenS: 0, perKvTokenS: 0 }, watermark: 0, baselines: false };
  const r = await simulatePool(scout(), { ...unit, trace: [{ arrivalS: 0, promptLen: 32, outputLen: 2 }] });
  assert.equal(r.numPages, 54_613);
  assert.equal(r.poolGroups, 4);
  assert.equal(r.poolTokens, 218_448);
  assert.equal(r.summary.peakOccupancy, 12 / 54_613);
  assert.match(r.poolLayout ?? '', /1 full-attention and 3 chunked-attention groups take their blocks from the one pool\. .*in each chunked group, only the current 8,192-token chunk's: the blocks of positions floor\(computed \/ 8,192\) · 8,192 \.\. computed \+ scheduled − 1/);
  assert.doesNotMatch(r.poolLayout ?? '', /upper bound|sliding window/);
  // A long prompt of 20,000 tokens, output 2, prefilled in chunks of max_num_batched_tokens 8,192 (chunk C = 8,192
  // tokens = 512 blocks of 16), by hand (vLLM frees a chunked group's blocks before floor(c / C) · C, then allocates):
  //   step 1: c = 0, n = 8,192: full 512, each chunked group pages 0..511: 4 · 512 = 2,048.
  //   step 2: c = 8,192: pages 0..511 freed; 16,384 tokens: full 1,024, chunked 512..1,023: 1,024 + 3 · 512 = 2,560 (the peak).
  //   step 3: c = 16,384: pages ..1,023 freed; 20,000: full 1,250, chunked 1,024..1,249: 1,250 + 3 · 226 = 1,928.
  //   step 4: c = 20,000: 20,001 tokens: 1,251 + 3 · 227 = 1,932.
  // As a sliding window of 8,192 (the simulation before): step 2 keeps pages 0..1,023 (1,024 + 3 · 1,024 = 4,096).
  const long = await simulatePool(scout(), { ...unit, trace: [{ arrivalS: 0, promptLen: 20_000, outputLen: 2 }] });
  assert.equal(long.summary.peakOccupancy, 2_560 / 54_613);
  await stopSimulations();
});

test('engine.disable_hybrid_kv_cache_manager: true gives one group (vLLM\'s --disable-hybrid-kv-cache-manager), false turns it on for chunked layers on 0.13 (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1)', () => {
  // Scout, true on the current release: the uniform figures of 0.13 above, 13,653 blocks, 1.67x.
  const off = estimate(scout('engine: { disable_hybrid_kv_cache_manager: true }\n'));
  assert.equal(off.pool.layout.kind, 'uniform');
  assert.equal(off.pool.pages, 13_653);
  assert.match(off.pool.layout.basis, /^engine\.disable_hybrid_kv_cache_manager true/);
  // Scout, false on 0.13.0: the 4 groups of the current release, 54,613 blocks, 11,264 a request.
  const on = estimate(scout('engine: { vllm_version: "0.13.0", disable_hybrid_kv_cache_manager: false }\n'));
  assert.equal(on.pool.layout.chunkedGroups, 3);
  assert.deepEqual([on.pool.pages, on.pool.blocksPerSeq], [54_613, 11_264]);
  // gpt-oss-120b, true: every layer in one group, as vLLM 0.8.5 above: 7,281 blocks of 16 · 73,728 B.
  const gpt = estimate(profile('gpt-oss-120b', (p) => { eightGib(null)(p); p.engine = { ...DEFAULT_ENGINE, disableHybridKvCacheManager: true }; }));
  assert.deepEqual([gpt.pool.layout.kind, gpt.pool.pages], ['uniform', 7_281]);
  // Before 0.9.0 there is no hybrid manager to turn on: false changes nothing.
  const old = estimate(profile('gpt-oss-120b', (p) => { eightGib(null)(p); p.engine = { ...DEFAULT_ENGINE, vllmVersion: '0.8.5', disableHybridKvCacheManager: false }; }));
  assert.deepEqual([old.pool.layout.kind, old.pool.pages], ['uniform', 7_281]);
  // Not a boolean: the schema's error at the key, as every engine key.
  const bad = readProfile('model: ./scout/config.json\nengine: { disable_hybrid_kv_cache_manager: 1 }\n', '/w/p.attn.yaml', { readFile: () => SCOUT });
  assert.deepEqual(bad.problems.filter((x) => x.severity === 'error').map((x) => x.message), ["engine.disable_hybrid_kv_cache_manager must be true or false (vLLM's --disable-hybrid-kv-cache-manager), not the number 1"]);
});
