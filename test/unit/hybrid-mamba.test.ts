/**
 * Hybrid Mamba / attention models (core/config/mamba.ts, core/estimate mambaLayerParams and
 * mambaStateBytesPerSequence). The configs are the published config.json values of each model
 * (HF model cards; AI21's Jamba-v0.1 / Jamba-1.5-Mini config, ibm-ai-platform/Bamba-9B,
 * nvidia/Nemotron-H-8B-Base-8K), trimmed of keys that size nothing. Expected values are hand
 * counts of vLLM's model files, each written out beside its assert; read as pure transformers
 * (before these families were read) every one of them was different.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, readProfile, type ModelSpec, type Problem } from '../../core/config/index';
import { checkProfile, DEFAULT_ENGINE, estimate, kvBytesPerToken, mambaLayerParams, mambaStateBytesPerSequence, paramCounts, quantizedWeights } from '../../core/estimate/index';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runSeverity } from '../../core/validate';
import { only } from '../fixtures/problems';
import { stopSimulations } from '../../native/simulator';
import { simulatePool } from '../../runner/simulate/index';

const JAMBA = {
  architectures: ['JambaForCausalLM'], model_type: 'jamba', attn_layer_offset: 4, attn_layer_period: 8, expert_layer_offset: 1, expert_layer_period: 2,
  hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_state: 16, mamba_dt_rank: 256,
  mamba_expand: 2, mamba_proj_bias: false, max_position_embeddings: 262144, num_attention_heads: 32, num_experts: 16, num_experts_per_tok: 2,
  num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-6, sliding_window: null, tie_word_embeddings: false, torch_dtype: 'bfloat16',
  use_mamba_kernels: true, vocab_size: 65536,
};

const BAMBA = {
  architectures: ['BambaForCausalLM'], model_type: 'bamba', attn_layer_indices: [9, 18, 27], hidden_size: 4096, intermediate_size: 14336,
  mamba_chunk_size: 256, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_state: 128, mamba_expand: 2, mamba_n_groups: 1,
  mamba_n_heads: 128, mamba_proj_bias: false, max_position_embeddings: 262144, num_attention_heads: 32, num_hidden_layers: 32,
  num_key_value_heads: 8, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 128256,
};

const NEMOTRON_H = {
  architectures: ['NemotronHForCausalLM'], model_type: 'nemotron_h', hybrid_override_pattern: 'M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-',
  hidden_size: 4096, intermediate_size: 21504, num_hidden_layers: 52, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128,
  attention_bias: false, mlp_bias: false, mamba_num_heads: 128, mamba_head_dim: 64, n_groups: 8, ssm_state_size: 128, conv_kernel: 4, expand: 2,
  use_conv_bias: true, use_bias: false, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072, max_position_embeddings: 8192,
};

function read(config: object): { model: ModelSpec; problems: Problem[] } {
  const r = readModelConfig(JSON.stringify(config));
  assert.ok(r.value, JSON.stringify(r.problems));
  return { model: r.value, problems: r.problems };
}

test('Jamba-v0.1: attention every 8th layer from 4, MoE every 2nd from 1; KV, parameters and Mamba state as vLLM builds them', () => {
  const { model, problems } = read(JAMBA);
  // The info at the config says what the pool figures leave out.
  assert.match(only(problems, 'linear-attention-layers').message, /^28 of 32 layers are Mamba layers: only the 4 attention layers keep a per-token KV cache; .*the page, pool, concurrency and simulation figures here count both/);
  // i % 8 == 4 over 0..31: layers 4, 12, 20, 28 attend.
  assert.deepEqual(model.layerTypes.flatMap((t, i) => (t === 'full' ? [i] : [])), [4, 12, 20, 28]);
  // 4 attention layers · 2 (K, V) · 8 KV heads · 128 · 2 B = 16,384 B (read as 32 attention layers: 131,072).
  assert.equal(kvBytesPerToken(model, 'bf16'), 16_384);
  // One Mamba-1 layer (vLLM MambaMixer, I = 2 · 4096 = 8192, N 16, K 4, R 256):
  // in_proj 4096·16384 = 67,108,864; conv1d 8192·4 + 8192 bias = 40,960; x_proj 8192·(256 + 32) = 2,359,296;
  // dt_proj 256·8192 + 8192 = 2,105,344; A 8192·16 = 131,072; D 8192; out_proj 8192·4096 = 33,554,432;
  // dt/B/C RMSNorms 256 + 16 + 16 = 288. Sum 105,308,448.
  assert.equal(mambaLayerParams(model), 105_308_448);
  const p = paramCounts(model);
  // embedding 65536·4096 = 268,435,456, lm_head the same (untied);
  // attention 4 · (4096·4096·2 + 4096·1024·2) = 4 · 41,943,040 = 167,772,160;
  // Mamba 28 · 105,308,448 = 2,948,636,544;
  // MoE on layers 1, 3, ..., 31: 16 · 16 experts · 3·4096·14336 (176,160,768) = 45,097,156,608, routers 16 · 4096·16 = 1,048,576;
  // dense MLP on the 16 even layers: 16 · 176,160,768 = 2,818,572,288; norms 32 · 2 · 4096 + 4096 = 266,240.
  // Total 51,570,323,328: the card's "52B total" (51.6B).
  assert.equal(p.breakdown.mamba, 2_948_636_544);
  assert.equal(p.breakdown.attention, 167_772_160);
  assert.equal(p.total, 51_570_323_328);
  assert.ok(Math.abs(p.total / 51.6e9 - 1) < 0.01);
  // Active: total − 16 layers · 14 idle experts · 176,160,768 = 12,110,311,296 with the embedding (the card's "12B active").
  assert.equal(p.active + p.breakdown.embedding, 12_110_311_296);
  // Mamba state (vLLM mamba1_state_shape, bf16): 28 · (conv 8192·3·2 = 49,152 + SSM 8192·16·2 = 262,144) = 8,716,288 B.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 8_716_288);
  // tp 2 halves I: 28 · (4096·3·2 + 4096·16·2) = 4,358,144.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16', 2), 4_358_144);
});

test('Bamba-9B: attention at attn_layer_indices, Mamba-2 elsewhere; the card\'s 9.78B parameters', () => {
  const { model } = read(BAMBA);
  assert.deepEqual(model.layerTypes.flatMap((t, i) => (t === 'full' ? [i] : [])), [9, 18, 27]);
  // 3 · 2 · 8 · 128 · 2 = 12,288 B/token.
  assert.equal(kvBytesPerToken(model, 'bf16'), 12_288);
  // Mamba-2 layer (vLLM MambaMixer2, I 8192, G 1, N 128, nh 128, K 4): in_proj 4096·(16384 + 256 + 128) = 68,681,728;
  // conv1d (8192 + 256)·4 + 8448 bias = 42,240; A, D, dt_bias 3·128 = 384; gated norm 8192; out_proj 33,554,432. Sum 102,286,976.
  assert.equal(mambaLayerParams(model), 102_286_976);
  // embedding + lm_head 2 · 128256·4096 = 1,050,673,152; attention 3 · 41,943,040 = 125,829,120;
  // Mamba 29 · 102,286,976 = 2,966,322,304; MLP 32 · 3·4096·14336 = 5,637,144,576; norms 32·2·4096 + 4096 = 266,240.
  // Total 9,780,235,392 (the Bamba-9B card: 9.78B).
  assert.equal(paramCounts(model).total, 9_780_235_392);
  // State, bf16: 29 · (conv (8192 + 2·1·128)·3·2 = 50,688 + SSM 128·64·128·2 = 2,097,152) = 62,287,360.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 62_287_360);
  // tp 2: one group replicated to 2 (extra_groups_for_head_shards), conv (8192 + 2·2·128)/2·3·2 = 26,112,
  // SSM 64·64·128·2 = 1,048,576: 29 · 1,074,688 = 31,165,952.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16', 2), 31_165_952);
});

test('Nemotron-H-8B: hybrid_override_pattern blocks; no MLP in Mamba and attention blocks; SSM state in fp32', () => {
  const { model } = read(NEMOTRON_H);
  // "*" at 7, 18, 29, 40: 4 · 2 · 8 · 128 · 2 = 16,384 B/token.
  assert.equal(kvBytesPerToken(model, 'bf16'), 16_384);
  // 24 M blocks: in_proj 4096·(16384 + 2·8·128 + 128) = 76,021,760; conv1d 10240·4 + 10240 = 51,200; 384; norm 8192;
  // out_proj 33,554,432: 109,635,968 each. 24 "-" blocks: plain MLP 2·4096·21504 = 176,160,768 each.
  // embedding + lm_head 2 · 131072·4096 = 1,073,741,824; attention 4 · 41,943,040 = 167,772,160;
  // Mamba 24 · 109,635,968 = 2,631,263,232; MLP 24 · 176,160,768 = 4,227,858,432; norms 52 · 4096 + 4096 = 217,088.
  // Total 8,100,852,736 (the 8B of its name).
  const p = paramCounts(model);
  assert.equal(p.breakdown.mlp, 4_227_858_432);
  assert.equal(p.total, 8_100_852_736);
  // vLLM NemotronHForCausalLMConfig: SSM state float32 unless the config says otherwise, conv state in the model dtype:
  // 24 · ((8192 + 2·8·128)·3·2 = 61,440 + 128·64·128·4 = 4,194,304) = 102,137,856 B.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 102_137_856);
  const bf16State = read({ ...NEMOTRON_H, mamba_ssm_cache_dtype: 'bfloat16' }).model;
  assert.equal(mambaStateBytesPerSequence(bf16State, 'bf16'), 24 * (61_440 + 2_097_152));
});

test('GraniteMoeHybrid layer_types "mamba" / "attention": Mamba-2 parameters, not attention shapes', () => {
  const config = {
    model_type: 'granitemoehybrid', hidden_size: 64, intermediate_size: 128, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 1,
    vocab_size: 100, layer_types: ['mamba', 'attention', 'mamba', 'mamba'], mamba_n_heads: 4, mamba_d_head: 32, mamba_n_groups: 1, mamba_d_state: 16,
    mamba_d_conv: 4, mamba_expand: 2, mamba_conv_bias: true, mamba_proj_bias: false, tie_word_embeddings: true,
  };
  const { model } = read(config);
  // I 128: in_proj 64·(256 + 32 + 4) = 18,688; conv1d 160·4 + 160 = 800; A, D, dt_bias 12; norm 128; out_proj 8,192. Sum 27,820.
  assert.equal(mambaLayerParams(model), 27_820);
  const b = paramCounts(model).breakdown;
  assert.equal(b.mamba, 3 * 27_820);
  // One attention layer: 64·64·2 + 64·16·2 = 10,240 (not 4 of them).
  assert.equal(b.attention, 10_240);
});

/** The estimate of `config` with an explicit KV budget of `gib` GiB, on the vLLM release `vllm` (null: the current one). */
function mambaEstimate(config: object, gib: number, vllm: string | null, kv: 'auto' | 'fp8_e4m3' = 'auto') {
  const { model } = read(config);
  const base = profileFromModelConfig(model, null);
  return estimate({ ...base, kvCache: { pageSize: 16, dtype: kv, numPages: 'auto', memoryGib: gib }, engine: { ...DEFAULT_ENGINE, vllmVersion: vllm } });
}

test('Jamba-v0.1 in the pool as vLLM V1 lays it out: attention block size raised to 80, 1 attention + 7 Mamba groups, state blocks per request', () => {
  // Hand count from vLLM (vllm/model_executor/models/config.py HybridAttentionMambaModelConfig,
  // vllm/v1/core/kv_cache_utils.py, vllm/v1/kv_cache_interface.py MambaSpec):
  // attention page for 1 token per layer: 2 · 8 KV heads · 128 · 2 B = 4,096 B;
  // Mamba page (one layer's state, bf16): conv 8192·3·2 = 49,152 + SSM 8192·16·2 = 262,144 = 311,296 B;
  // attn_block_size = 16 · ceil(311,296 / (16 · 4,096)) = 16 · ceil(4.75) = 80 tokens (page_size 16 is raised);
  // attention page 80 · 4,096 = 327,680 B, the state padded by 16,384 B (5.26 %).
  // Groups (_get_kv_cache_groups_uniform_page_size): 4 attention, 28 Mamba layers; 28 >= 1.5 · 4, so
  // group size 4: 1 attention group + 7 Mamba groups; block = 4 · 327,680 = 1,310,720 B.
  // 10 GiB / 1,310,720 = 8,192 blocks; "GPU KV cache size" = 8,192 // 8 groups · 80 = 81,920 tokens.
  const e = mambaEstimate(JAMBA, 10, '0.19.0');
  const l = e.pool.layout;
  assert.equal(l.kind, 'mamba');
  assert.equal(l.pageSize, 80);
  assert.equal(l.mambaPageBytes, 311_296);
  assert.deepEqual([l.groupSize, l.fullGroups, l.mambaGroups, l.stateBlocks], [4, 1, 7, 1]);
  assert.equal(e.pageBytes, 1_310_720);
  assert.equal(e.pageBytesPerLayer, 327_680);
  assert.equal(e.pool.pages, 8_192);
  assert.equal(e.pool.tokens, 81_920);
  // Max concurrency at N = 262,144 (max_position_embeddings): a request takes ceil(262,144 / 80) = 3,277
  // attention blocks + 7 Mamba groups · 1 state block (mamba_cache_mode "none", vLLM 0.19.0) = 3,284;
  // 8,192 / 3,284 = 2.4945 (attention KV alone at page 16: 2.5).
  assert.equal(e.pool.blocksPerSeq, 3_284);
  assert.equal(e.pool.seqNeededBytes, 3_284 * 1_310_720);
  assert.equal(e.pool.maxConcurrency, 8_192 / 3_284);
  assert.equal(e.mambaStateBytesPerSeq, 8_716_288);
  const note = e.notes.find((n) => n.includes('Mamba layers keep a constant state'));
  assert.ok(note, e.notes.join('\n'));
  assert.match(note, /raises the attention block size from page_size 16 to 80 tokens, .*\(\+5\.26 %; HybridAttentionMambaModelConfig\)/);
  assert.doesNotMatch(note, /not modelled/);
  // The current release (prefix caching on for hybrids by default, mamba_cache_mode "align" from 0.28.0): 2 state blocks per group.
  const current = mambaEstimate(JAMBA, 10, null);
  assert.equal(current.pool.layout.stateBlocks, 2);
  assert.equal(current.pool.blocksPerSeq, 3_277 + 14);
  // Before vLLM 0.10.0 (V0) the state was not in the KV pool: attention-only pages of 16 tokens, and a note says so.
  const v0 = mambaEstimate(JAMBA, 10, '0.9.2');
  assert.equal(v0.pool.layout.kind, 'uniform');
  assert.equal(v0.pool.layout.pageSize, 16);
  assert.match(v0.notes.find((n) => n.includes('Mamba layers keep'))!, /kept it outside the KV pool .*not modelled/);
});

test('engine.disable_hybrid_kv_cache_manager true on Jamba: an error at the key, as vLLM refuses to start (unify_hybrid_kv_cache_specs raises)', () => {
  // vLLM's get_kv_cache_config calls unify_hybrid_kv_cache_specs when disable_hybrid_kv_cache_manager is
  // set; it turns SlidingWindowSpec into FullAttentionSpec only, so Jamba's 4 FullAttentionSpec and 28
  // MambaSpec layers stay two types and it raises ValueError("Hybrid KV cache manager is disabled but failed
  // to convert the KV cache specs to one unified type.") (vllm-project/vllm bbf906a; issue #42911 on 0.19.1).
  const text = 'model: ./jamba/config.json\nkv_cache: { memory_gib: 10 }\nengine: { vllm_version: "0.19.0", disable_hybrid_kv_cache_manager: true }\n';
  const r = readProfile(text, '/w/p.attn.yaml', { readFile: () => JSON.stringify(JAMBA) });
  assert.deepEqual(r.problems.filter((x) => x.severity === 'error'), []);
  const p = r.value!;
  const found = checkProfile(p, estimate(p)).filter((x) => x.code === 'hybrid-manager-required');
  assert.equal(found.length, 1);
  assert.equal(found[0]!.severity, 'error');
  assert.match(found[0]!.message, /^engine\.disable_hybrid_kv_cache_manager true: vLLM refuses to start this hybrid \(1 attention and 7 Mamba KV-cache groups\) .*"Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type\."/);
  assert.equal(text.slice(found[0]!.range.offset, found[0]!.range.offset + found[0]!.range.length), 'true');
  // A deployment check: in a CLI run a warning, the estimate still printed; README says both (s41 newcomer F12: it said "an error at the key" alone).
  assert.equal(runSeverity(found[0]!), 'warning');
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
  assert.match(readme, /DeltaNet model with attention layers, true is an error at the key in the editor, and in the CLI a warning at it/);
  // false, or absent, is what vLLM runs; before 0.10.0 the state was outside the pool (V0), nothing to unify.
  for (const engine of ['{ vllm_version: "0.19.0", disable_hybrid_kv_cache_manager: false }', '{ vllm_version: "0.19.0" }', '{ vllm_version: "0.9.2", disable_hybrid_kv_cache_manager: true }']) {
    const q = readProfile(`model: ./jamba/config.json\nkv_cache: { memory_gib: 10 }\nengine: ${engine}\n`, '/w/p.attn.yaml', { readFile: () => JSON.stringify(JAMBA) }).value!;
    assert.deepEqual(checkProfile(q, estimate(q)).filter((x) => x.code === 'hybrid-manager-required'), [], engine);
  }
});

test('engine.mamba_cache_mode "all" on Bamba-9B: the block aligned to the Mamba chunk, a state block per block of tokens reserved, and the simulation frees all but the last', async () => {
  // vLLM (vllm-project/vllm 1936cf3, HybridAttentionMambaModelConfig's prefix-caching path; bc8282e,
  // MambaSpec.max_memory_usage_bytes "all" = cdiv(max_model_len, block_size) pages; MambaManager under "all"
  // frees the state blocks before floor((computed − 1) / block)). Bamba-9B bf16: a Mamba-2 layer's state
  // (8,192 + 2 · 1 · 128) · 3 · 2 + 128 · 64 · 128 · 2 = 2,147,840 B, attention 2 · 8 · 128 · 2 = 4,096 B a token
  // and layer: cdiv(2,147,840, 4,096) = 525 tokens; chunk lcm(mamba_chunk_size 256, 16) = 256 -> block
  // 256 · cdiv(525, 256) = 768 tokens ("none": 16 · ceil(525 / 16) = 528). 3 attention + 29 Mamba layers in
  // groups of 3: 1 + 10 groups, blocks of 3 · 768 · 4,096 = 9,437,184 B; 10 GiB -> 1,137 blocks. A request of
  // N = 262,144 reserves ceil(262,144 / 768) = 342 blocks in each of the 11 groups = 3,762 ("none":
  // 497 + 10 = 507 of 6,488,064 B, 1,654 blocks).
  const text = (mode: string) => `model: ./bamba/config.json\nkv_cache: { memory_gib: 10, page_size: 16 }\nworkload: { max_model_len: 262144, max_num_batched_tokens: 8192 }\nengine: { vllm_version: "0.19.0"${mode} }\n`;
  const read = (mode: string) => {
    const r = readProfile(text(mode), '/w/p.attn.yaml', { readFile: () => JSON.stringify(BAMBA) });
    assert.deepEqual(r.problems.filter((x) => x.severity === 'error'), []);
    return r.value!;
  };
  const all = read(', mamba_cache_mode: all');
  const e = estimate(all);
  assert.equal(all.model.mamba?.chunkSize, 256);
  assert.deepEqual([e.pool.layout.pageSize, e.pool.layout.fullGroups, e.pool.layout.mambaGroups, e.pool.layout.mambaCacheMode], [768, 1, 10, 'all']);
  assert.equal(e.pageBytes, 9_437_184);
  assert.equal(e.pool.pages, 1_137);
  assert.equal(e.pool.blocksPerSeq, 3_762);
  assert.match(e.pool.layout.basis, /ceil\(N \/ 768\) state blocks per Mamba group and request \(mamba_cache_mode "all", engine\.mamba_cache_mode/);
  const none = estimate(read(', mamba_cache_mode: none'));
  assert.deepEqual([none.pool.layout.pageSize, none.pool.pages, none.pool.blocksPerSeq], [528, 1_654, 507]);
  // "align" by the key on 0.19.0: 2 state blocks a group, 497 + 20.
  assert.equal(estimate(read(', mamba_cache_mode: align')).pool.blocksPerSeq, 517);
  // A bad value is the schema's error at the key.
  const bad = readProfile(text(', mamba_cache_mode: every'), '/w/p.attn.yaml', { readFile: () => JSON.stringify(BAMBA) });
  assert.match(bad.problems.find((x) => x.severity === 'error')?.message ?? '', /^engine\.mamba_cache_mode must be one of none, align, all, not the string "every"$/);
  // The simulation: one request of 2,000 prompt tokens, 2 output. Step 1: 3 attention blocks, and state
  // blocks 0..2 in each of the 10 Mamba groups: 33. Step 2 (computed 2,000): blocks before floor(1,999 / 768) = 2
  // freed in the Mamba groups: 3 + 10 = 13. Peak 33 of 1,137 (with a constant state block, 3 + 10 = 13).
  const r = await simulatePool(all, { stepTime: { perStepS: 1, perTokenS: 0, perKvTokenS: 0 }, watermark: 0, baselines: false, trace: [{ arrivalS: 0, promptLen: 2_000, outputLen: 2 }] });
  assert.equal(r.numPages, 1_137);
  assert.equal(r.summary.peakOccupancy, 33 / 1_137);
  assert.match(r.poolLayout ?? '', /MambaManager, mamba_cache_mode "all"/);
  await stopSimulations();
  // Jamba (Mamba-1, no chunk size in its config): "all" is aligned to 16 alone, and a warning at the key says so.
  const j = readProfile('model: ./jamba/config.json\nkv_cache: { memory_gib: 10 }\nengine: { vllm_version: "0.19.0", mamba_cache_mode: all }\n', '/w/p.attn.yaml', { readFile: () => JSON.stringify(JAMBA) }).value!;
  const warn = checkProfile(j, estimate(j)).find((x) => x.code === 'mamba-all-unaligned');
  assert.match(warn?.message ?? '', /^engine\.mamba_cache_mode "all": vLLM aligns the block to the Mamba-2 chunk size .*Mamba config does not give/);
});

test('Nemotron-H-8B: 97 MiB of state per sequence takes 6 of the 14 blocks an 8,192-token request reserves', () => {
  // Hand count (vLLM as above): attention 2 · 8 · 128 · 2 = 4,096 B/token/layer; one Mamba-2 layer's state,
  // conv (8192 + 2·8·128)·3 · 2 B = 61,440 + SSM 128·64·128 · 4 B (fp32) = 4,194,304: 4,255,744 B;
  // attn_block_size = 16 · ceil(4,255,744 / 65,536) = 16 · 65 = 1,040 tokens; page 4,259,840 B (+0.10 %).
  // 4 attention + 24 Mamba layers: group size 4, 1 + 6 groups, block 4 · 4,259,840 = 17,039,360 B.
  // 40 GiB / 17,039,360 = 2,520 blocks; tokens 2,520 // 7 · 1,040 = 374,400.
  // N = 8,192: ceil(8,192 / 1,040) = 8 attention blocks + 6 state blocks = 14; 2,520 / 14 = 180x
  // (attention KV alone, as this estimate counted before: 40 GiB / 256 KiB = 163,840 pages of 16 tokens,
  // / 512 = 320x); the state blocks are 6 · 17,039,360 B = 97.5 MiB of the 227.5 MiB a request reserves.
  const e = mambaEstimate(NEMOTRON_H, 40, '0.19.0');
  assert.equal(e.pool.layout.pageSize, 1_040);
  assert.equal(e.pageBytes, 17_039_360);
  assert.equal(e.pool.pages, 2_520);
  assert.equal(e.pool.tokens, 374_400);
  assert.equal(e.pool.blocksPerSeq, 14);
  assert.equal(e.pool.maxConcurrency, 180);
  // With "align" (the current default): 8 + 12 = 20 blocks, 126x.
  assert.equal(mambaEstimate(NEMOTRON_H, 40, null).pool.maxConcurrency, 126);
});

test('a real vLLM 0.19.0 log: Nemotron-Cascade-2-30B-A3B (Nemotron-3 Nano shapes), fp8 KV, fp32 SSM state: "Setting attention block size to 4176 tokens", "Padding mamba page size by 0.19%"', () => {
  // The log (a public container log, vllm/vllm-openai 0.19.0, chankhavu/Nemotron-Cascade-2-30B-A3B-NVFP4,
  // kv_cache_dtype fp8, mamba_ssm_cache_dtype float32, max_model_len 131072):
  //   INFO [config.py:281] Setting attention block size to 4176 tokens to ensure that attention page size is >= mamba page size.
  //   INFO [config.py:312] Padding mamba page size by 0.19% to ensure that mamba page size and attention page size are exactly equal.
  // Its config is NVIDIA-Nemotron-3-Nano-30B-A3B's (config.json: hidden 2688, 52 blocks, 32 heads, 2 KV heads,
  // head_dim 128, mamba 64 heads · 64, n_groups 8, state 128, conv 4, mamba_ssm_cache_dtype float32).
  const NANO = {
    architectures: ['NemotronHForCausalLM'], model_type: 'nemotron_h', hybrid_override_pattern: 'MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME',
    hidden_size: 2688, intermediate_size: 1856, num_hidden_layers: 52, num_attention_heads: 32, num_key_value_heads: 2, head_dim: 128,
    mamba_num_heads: 64, mamba_head_dim: 64, n_groups: 8, ssm_state_size: 128, conv_kernel: 4, expand: 2, use_conv_bias: true,
    mamba_ssm_cache_dtype: 'float32', n_routed_experts: 128, num_experts_per_tok: 6, moe_intermediate_size: 1856,
    moe_shared_expert_intermediate_size: 3712, n_shared_experts: 1, tie_word_embeddings: false, torch_dtype: 'bfloat16',
    vocab_size: 131072, max_position_embeddings: 262144,
  };
  const e = mambaEstimate(NANO, 20, '0.19.0', 'fp8_e4m3');
  const l = e.pool.layout;
  assert.equal(l.pageSize, 4_176);
  // 512 B/token/layer (fp8) · 4,176 = 2,138,112 B against a 2,134,016 B state: padded by 0.19 %.
  assert.equal(l.mambaPageBytes, 2_134_016);
  assert.equal(((100 * (e.pageBytesPerLayer - l.mambaPageBytes)) / l.mambaPageBytes).toFixed(2), '0.19');
  const note = e.notes.find((n) => n.includes('layers keep a constant state'))!;
  assert.match(note, /from page_size 16 to 4,176 tokens/);
  assert.match(note, /\+0\.19 %/);
});

test('unknown hybrid layouts are warned at the key or value, not read silently as a pure transformer', () => {
  const LLAMA = { model_type: 'llama', hidden_size: 64, num_attention_heads: 4, num_key_value_heads: 4, num_hidden_layers: 4, vocab_size: 100, intermediate_size: 128 };
  const text = JSON.stringify({ ...LLAMA, model_type: 'mystery_hybrid', mamba_d_state: 16 });
  const r = readModelConfig(text);
  const w = only(r.problems, 'unknown-hybrid-layout');
  assert.equal(w.severity, 'warning');
  assert.equal(text.slice(w.range.offset, w.range.offset + w.range.length), '"mamba_d_state"');

  const zText = JSON.stringify({ ...LLAMA, model_type: 'zamba2', layers_block_type: ['mamba', 'hybrid', 'moe_block', 'mamba'] });
  const z = readModelConfig(zText);
  const u = only(z.problems, 'unknown-layer-type');
  assert.equal(zText.slice(u.range.offset, u.range.offset + u.range.length), '"moe_block"');
  // "hybrid" and the unknown one attend: 2 · (2 · 4 · 32 (Zamba2's head_dim 2·64/4) · 2) = 1,024 B/token.
  assert.equal(kvBytesPerToken(z.value!, 'bf16'), 1_024);
  assert.equal(only(z.problems, 'params-approximated').severity, 'warning');

  const nText = JSON.stringify({ ...NEMOTRON_H, hybrid_override_pattern: `${NEMOTRON_H.hybrid_override_pattern.slice(0, 51)}X` });
  const n = only(readModelConfig(nText).problems, 'unknown-layer-type');
  assert.match(n.message, /"X"/);
});

test('Falcon-H1: attention and Mamba-2 side by side in every layer; a bad Jamba period is an error at the key', () => {
  const { model } = read({
    model_type: 'falcon_h1', hidden_size: 64, intermediate_size: 128, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16,
    vocab_size: 100, mamba_d_ssm: 128, mamba_n_heads: 4, mamba_d_head: 32, mamba_n_groups: 1, mamba_d_state: 16, mamba_d_conv: 4,
    mamba_rms_norm: false, mamba_conv_bias: true, mamba_proj_bias: false,
  });
  // Every layer attends: 2 · 2 · 2 · 16 · 2 = 256 B/token.
  assert.equal(kvBytesPerToken(model, 'bf16'), 256);
  // ... and runs Mamba-2 (I = mamba_d_ssm 128): in_proj 64·(256 + 32 + 4) = 18,688, conv1d 160·4 + 160 = 800, A/D/dt_bias 12,
  // no gated norm (mamba_rms_norm false), out_proj 8,192: 27,692 a layer, 2 layers.
  assert.equal(paramCounts(model).breakdown.mamba, 2 * 27_692);
  // State bf16: 2 · ((128 + 2·16)·3·2 = 960 + 4·32·16·2 = 4,096) = 10,112 B.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 10_112);

  const text = JSON.stringify({ ...JAMBA, attn_layer_period: 4, attn_layer_offset: 4 });
  const e = only(readModelConfig(text).problems, 'invalid-value');
  assert.equal(text.slice(e.range.offset, e.range.offset + e.range.length), '4');
  assert.match(e.message, /"attn_layer_offset" 4 must be below "attn_layer_period" 4/);
});

test('quantized hybrid checkpoints: the Mamba projections are quantized, and only the layers that have attention and MLPs count them', () => {
  // Jamba-v0.1's linear weights: attention 4 · 41,943,040 = 167,772,160; Mamba projections 28 · (in_proj 4096·16384 +
  // x_proj 8192·288 + dt_proj 256·8192 + out_proj 8192·4096 = 105,119,744) = 2,943,352,832; dense MLP 2,818,572,288;
  // experts 45,097,156,608. Sum 51,026,853,888, by the flat (fp8) path and tensor by tensor (AWQ) alike; conv1d, A, D,
  // dt_proj's bias and the norms (28 · 188,704) stay in bf16.
  const fp8 = read({ ...JAMBA, quantization_config: { quant_method: 'fp8' } }).model;
  assert.equal(quantizedWeights(fp8).params, 51_026_853_888);
  const awq = read({ ...JAMBA, quantization_config: { quant_method: 'awq', bits: 4, group_size: 128, zero_point: true } }).model;
  assert.equal(quantizedWeights(awq).params, 51_026_853_888);
});
