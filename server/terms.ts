/**
 * The terms of the memory estimate as a reader checks them: name, formula with this file's
 * numbers put in, value (from core's Estimate), and the keys that drive it. Hover shows them as
 * one table; each inlay hint's tooltip shows the rows behind its figure.
 */
import { mixerNames, type ModelSpec } from '../core/config';
import { blocksPerRequestFormula, dtypeBytes, engineKeyOf, headsPerGpu, isChunkedLocalAttention, kvBytesForSequence, kvCacheLayerTypes, perGpuModel, kvHeadsPerGpu, kvLayerCount, kvCacheGroups, grouped, mambaStateDtypes, poolTokenPages, tokenPageBytes, maxNumSeqsOf, poolBlocksText, poolGroupsWhy, poolTokensFormula, quantizedScopeText, quantizedWeights, quantizedWidthText, requestReservation, type AttentionWorkspace, type Estimate } from '../core/estimate';
import { formatBytes, formatCount, formatCountOf, formatParams, gpuCount, tpWeightsFormula, vllmConcurrencyLine } from '../core/format';
import type { Analysis } from './analysis';

export type TermId = 'params' | 'active' | 'weights' | 'kvLayer' | 'kvToken' | 'mambaState' | 'page' | 'budget' | 'pool' | 'reserved' | 'concurrency' | 'naive' | 'flash';

export interface TermRow {
  id: TermId;
  term: string;
  formula: string;
  value: string;
  /**
   * Keys that change this term: the last path segment, as written in the file where possible, or a
   * dotted path where one name means two things (kv_cache.dtype, the KV cache's, beside the
   * top-level dtype, the weights'): a key whose path is named so matches only that entry
   * ({@link drivesTerm}).
   */
  keys: string[];
}

/**
 * Whether the key at dotted path `path` (e.g. "kv_cache.dtype", "dtype", "device.tensor_parallel_size")
 * is one of `row`'s keys: by its whole path where some row names that path, else by its last segment.
 */
export function drivesTerm(rows: readonly TermRow[], row: TermRow, path: string): boolean {
  const qualified = rows.some((r) => r.keys.includes(path)) && path.includes('.');
  return qualified ? row.keys.includes(path) : row.keys.includes(path.slice(path.lastIndexOf('.') + 1));
}

const bytesAndCount = (b: number): string => (b < 1024 ? `${formatCount(b)} B` : `${formatBytes(b)} (${formatCount(b)} B)`);

/**
 * The block size a page row names: "page_size", or for a hybrid Mamba pool whose attention block
 * vLLM raised above it, "vLLM's raised block size (page_size 16 → 80 so an attention page holds
 * one Mamba state)".
 */
function pageSizeTerm(e: Estimate, pageSize: number): string {
  const l = e.pool.layout;
  return l.pageSize > pageSize ? `vLLM's raised block size (page_size ${pageSize} → ${formatCount(l.pageSize)}, so that an attention page holds one Mamba layer's state)` : 'page_size';
}

function key(model: ModelSpec, field: keyof ModelSpec, fallback: string): string {
  const path = model.sourceKeys[field] ?? fallback;
  return path.split('.').pop()!;
}

/** Every term of the analysed document's estimate; [] when there is none. */
export function termRows(a: Analysis): TermRow[] {
  const e = a.estimate;
  const p = a.profile;
  const m = a.model;
  if (e === null || p === null || m === null) return [];
  const b = e.params;
  const tp = p.device.tensorParallelSize;
  const kvb = dtypeBytes(e.kvDtype);
  const L = m.numLayers;
  const rows: TermRow[] = [];
  // Under pipeline parallelism the per-GPU figures are one stage's (Estimate.pipeline.stage).
  const pipe = e.pipeline;
  const stage = pipe?.stages[pipe.stage];
  const stageText = pipe && stage ? `stage ${pipe.stage + 1} of ${pipe.size}` : '';
  const perGpu = stageText ? ` per GPU (${stageText})` : tp > 1 ? ' per GPU' : '';
  const gpus = gpuCount(p.device);
  const shapeKeys = [key(m, 'vocabSize', 'vocab_size'), key(m, 'hiddenSize', 'hidden_size'), key(m, 'numLayers', 'num_hidden_layers'), key(m, 'numHeads', 'num_attention_heads'), key(m, 'numKvHeads', 'num_key_value_heads'), key(m, 'headDim', 'head_dim'), key(m, 'intermediateSize', 'intermediate_size'), 'tie_word_embeddings'];
  // model_type picks the family, which decides tied embeddings, biases and norms where the keys are
  // absent (core/config/families.ts): a key of the parameter count (s48 newcomer-ed 3: its hover said both).
  shapeKeys.push('model_type');
  const moeKeys = ['num_local_experts', 'num_experts', 'n_routed_experts', 'num_experts_per_tok', 'moe_intermediate_size', 'n_shared_experts', 'first_k_dense_replace'];

  const parts: Array<[string, number]> = [['embedding', b.embedding], ['attention', b.attention], ['Mamba', b.mamba ?? 0], ['MLP', b.mlp], ['experts', b.experts], ['shared experts', b.sharedExperts], ['router', b.router], ['norms', b.norms], ['lm_head', b.lmHead], ['pooler', b.pooler], ['Gemma 3n AltUp / LAuReL / per-layer inputs', b.gemma3n ?? 0], ['vision tower and projector', b.vision ?? 0]];
  rows.push({
    id: 'params',
    term: 'Parameters',
    formula: parts.filter(([, n]) => n > 0).map(([name, n]) => `${name} ${formatParams(n)}`).join(' + '),
    value: `${formatParams(e.paramsTotal)} (${formatCount(e.paramsTotal)})${m.paramsApproximated ? ' (approximated)' : ''}`,
    keys: m.moe ? [...shapeKeys, ...moeKeys] : shapeKeys,
  });
  if (m.moe !== null) {
    rows.push({
      id: 'active',
      term: 'Active parameters',
      formula: `total − all routed experts ${formatParams(b.experts)} + ${m.moe.numExpertsPerTok} of ${m.moe.numExperts} per token ${formatParams(b.expertsActive)} − the input-embedding lookup ${formatParams(b.embedding)}${m.tieWordEmbeddings ? ' + it again as the tied lm_head' : ''} (as DeepSeek-V3 and gpt-oss count; Mixtral's, Qwen-MoE's and Llama 4's cards add the embedding: ${formatParams(e.paramsTotal - b.experts + b.expertsActive)})`,
      // The value says what it leaves out (the hint's "12.7B of 46.7B active" cannot): Mixtral's card
      // reads 12.9B, the count with the embedding, which a reader compares it with.
      value: `${formatParams(e.paramsActive)} (${formatCount(e.paramsActive)})${m.tieWordEmbeddings ? '' : ` without the input embedding; ${formatParams(e.paramsTotal - b.experts + b.expertsActive)} with it`}`,
      keys: moeKeys,
    });
  }
  const q = m.quantization;
  const qw = q ? quantizedWeights(m, e.params) : null;
  // What tensor parallelism does not split: the tensors vLLM keeps whole on every GPU (core/estimate replicatedWeights).
  const copies = e.kvBProjCopiesBytesPerGpu ?? 0;
  const offloaded = e.cpuOffloadBytesPerGpu ?? 0;
  // What each replicated part is in vLLM, this model's (the stage's) own, as the estimate carries them
  // with their bytes (TpReplication.parts) and its note names them.
  const replication = stage ? stage.replicated : e.replicated;
  const split = tpWeightsFormula('the weights', tp, replication, formatBytes, replication?.parts ?? []);
  // device.cpu_offload_gb: what one GPU keeps in CPU memory instead (core/estimate cpuOffload).
  const offloadText = offloaded > 0 ? ` − ${formatBytes(offloaded)} kept in CPU memory per GPU (cpu_offload_gb ${p.device.cpuOffloadGib}: vLLM's maybe_offload_to_cpu moves decoder layers' parameters, from the first, until the budget is reached; the KV budget gets them, and each forward pass reads them over PCIe)` : '';
  const stageWeights = pipe && stage
    ? `; pipeline_parallel_size ${pipe.size}: ${stageText} holds layers ${stage.start}-${stage.end - 1}${stage.holds.length ? ` and ${stage.holds.join(' and ')}` : ''} (vLLM get_pp_indices; the stage with the fewest KV blocks), ${formatBytes(stage.weightsBytes)} on its ${tp} GPU${tp > 1 ? 's' : ''}`
    : '';
  rows.push({
    id: 'weights',
    term: 'Weights',
    // What weightsBytes charges: the quantized parameters (quantizedWeights: gpt-oss's mxfp4 only
    // its routed experts, attention stays in dtype) at their stored width, the rest at the dtype's bytes.
    formula: `${q && qw ? `${quantizedScopeText(q)} ${formatParams(qw.params)} · ${quantizedWidthText(m, qw)} (${q.method}) + the rest ${formatParams(e.paramsTotal - qw.params)} · ${dtypeBytes(p.dtype)} B (${p.dtype})` : `parameters · ${dtypeBytes(p.dtype)} B (${p.dtype})`}${tp > 1 ? (split ? `; per GPU ${split}` : `, ÷ ${tp} GPUs`) : ''}${copies > 0 ? ` + ${formatBytes(copies)} of ${p.dtype} copies of kv_b_proj's halves W_UK_T and W_UV that vLLM keeps beside the quantized kv_b_proj for MLA's decode (its process_weights_after_loading)` : ''}${offloadText}${stageWeights}`,
    value: gpus > 1 ? `${formatBytes(e.weightsBytesPerGpu)}${perGpu}, ${formatBytes(e.weightsBytes)} on ${gpus} GPUs` : formatBytes(e.weightsBytesPerGpu),
    keys: ['dtype', 'torch_dtype', 'quantization_config', 'tensor_parallel_size', 'pipeline_parallel_size', 'cpu_offload_gb', ...shapeKeys],
  });
  if (!e.hasKvCache) return rows;

  const kvKeys = m.mla ? ['kv_lora_rank', 'qk_rope_head_dim'] : [key(m, 'numKvHeads', 'num_key_value_heads'), key(m, 'headDim', 'head_dim'), 'tensor_parallel_size'];
  rows.push({
    id: 'kvLayer',
    term: 'KV per token per layer',
    formula: m.mla
      ? `(kv_lora_rank + qk_rope_head_dim) · bytes = (${m.mla.kvLoraRank} + ${m.mla.qkRopeHeadDim}) · ${kvb} (MLA latent, no K/V pair)`
      : `2 (K, V) · H_kv${tp > 1 ? '/tp' : ''} · head_dim · bytes = 2 · ${kvHeadsPerGpu(m, tp)} · ${m.headDim} · ${kvb} (${e.kvDtype})`,
    value: bytesAndCount(e.kvBytesPerTokenPerLayer),
    keys: [...kvKeys, 'dtype', 'kv_cache.dtype'],
  });
  // Per GPU under tensor parallelism: the KV heads are split (vLLM's get_num_kv_heads, at least
  // one head each), MLA's latent is not.
  const kvSplit = tp <= 1 ? '' : m.mla
    ? `, per GPU: not ÷ tensor_parallel_size ${tp} (MLA's latent is replicated on every GPU)`
    : `, per GPU: H_kv ${m.numKvHeads} ÷ tensor_parallel_size ${tp} = ${kvHeadsPerGpu(m, tp)} KV head${kvHeadsPerGpu(m, tp) > 1 ? 's' : ''} each${m.numKvHeads < tp ? ' (replicated: at least one)' : ''}; the whole model ${formatBytes(e.kvBytesPerToken * Math.min(tp, m.numKvHeads) )}`;
  const kvLayers = stage ? e.kvBytesPerToken / e.kvBytesPerTokenPerLayer : kvLayerCount(m);
  rows.push({
    id: 'kvToken',
    term: 'KV per token',
    formula: `${stage ? `the layers of ${stageText} with a KV cache (${formatCount(kvLayers)} of layers ${stage.start}-${stage.end - 1}; pipeline_parallel_size ${pipe!.size})` : kvLayers === L ? 'num_hidden_layers' : m.numKvSharedLayers ? `layers with a KV cache of their own (${kvLayers} of ${L}; the last ${m.numKvSharedLayers}, num_kv_shared_layers, read an earlier layer's)` : `attention layers (${kvLayers} of ${L}; the others keep no per-token KV)`} · per layer = ${kvLayers} · ${formatCount(e.kvBytesPerTokenPerLayer)} B${kvSplit}${e.pool.layout.kind === 'uniform' ? ' (every layer charged, as vLLM sizes its pool)' : e.pool.layout.kind === 'mamba' ? ` (the ${m.mamba ? mixerNames(m.mamba).layer : 'Mamba'} layers' state is charged apart: see ${m.mamba ? mixerNames(m.mamba).short : 'Mamba'} state per sequence)` : (e.pool.layout.chunkedGroups ?? 0) > 0 ? ` (a request's reservation charges the chunked-attention layers attention_chunk_size + max_num_batched_tokens = ${formatCount((e.pool.layout.chunk ?? 0) + e.pool.layout.maxNumBatchedTokens)} tokens at most, not the whole sequence: see Reserved per request)` : ` (a request's reservation charges the sliding-window layers window − 1 + max_num_batched_tokens = ${formatCount(e.pool.layout.window - 1 + e.pool.layout.maxNumBatchedTokens)} tokens at most, not the whole sequence: see Reserved per request)`}`,
    value: `${bytesAndCount(e.kvBytesPerToken)}${perGpu}`,
    keys: [...kvKeys, key(m, 'numLayers', 'num_hidden_layers'), 'dtype', 'kv_cache.dtype', 'pipeline_parallel_size'],
  });
  const mamba = m.mamba;
  if (mamba && (e.mambaStateBytesPerSeq ?? 0) > 0) {
    const d = mambaStateDtypes(m, p.dtype);
    const I = mamba.intermediateSize;
    const names = mixerNames(mamba);
    const per = mamba.kind === 'shortconv'
      ? `conv conv_dim·(L_cache − 1) · ${dtypeBytes(d.conv)} = ${I}·${mamba.convKernel - 1} · ${dtypeBytes(d.conv)}`
      : mamba.kind === 'lightning'
      ? `heads·head_dim·head_dim · ${dtypeBytes(d.conv)} = ${mamba.numHeads}·${mamba.headDim}·${mamba.headDim} · ${dtypeBytes(d.conv)}`
      : mamba.kind === 'mamba1'
      ? `conv I·(K − 1) · ${dtypeBytes(d.conv)} + SSM I·N · ${dtypeBytes(d.ssm)} = ${I}·${mamba.convKernel - 1} · ${dtypeBytes(d.conv)} + ${I}·${mamba.stateSize} · ${dtypeBytes(d.ssm)}`
      : mamba.kind === 'gdn'
        ? `conv (2·key_dim + value_dim)·(K − 1) · ${dtypeBytes(d.conv)} + recurrent value_heads·value_head_dim·key_head_dim · ${dtypeBytes(d.ssm)} = (2·${mamba.nGroups}·${mamba.stateSize} + ${I})·${mamba.convKernel - 1} · ${dtypeBytes(d.conv)} + ${mamba.numHeads}·${mamba.headDim}·${mamba.stateSize} · ${dtypeBytes(d.ssm)}`
        : `conv (I + 2·G·N)·(K − 1) · ${dtypeBytes(d.conv)} + SSM heads·head_dim·N · ${dtypeBytes(d.ssm)} = (${I} + 2·${mamba.nGroups}·${mamba.stateSize})·${mamba.convKernel - 1} · ${dtypeBytes(d.conv)} + ${mamba.numHeads}·${mamba.headDim}·${mamba.stateSize} · ${dtypeBytes(d.ssm)}`;
    rows.push({
      id: 'mambaState',
      term: `${names.short} state per sequence`,
      formula: `${names.layer} layers · (${per})${tp > 1 ? ', ÷ tensor_parallel_size' : ''} (${names.states.map((s, i) => `${s} ${i === 0 ? d.conv : d.ssm}`).join(', ')}; vLLM mamba_utils.py shapes), whatever the length; ${e.pool.layout.kind === 'mamba' ? `held in the pool as ${e.pool.layout.mambaCacheMode === 'all' ? 'one block per block of tokens (mamba_cache_mode "all")' : formatCountOf(e.pool.layout.stateBlocks, 'block')} per Mamba group, each layer's state padded to an attention page of ${formatCount(e.pool.layout.pageSize)} tokens (${formatBytes(e.pool.layout.mambaPageBytes)} → ${formatBytes(e.pageBytesPerLayer)}; HybridAttentionMambaModelConfig)` : `not in the pages below: this vLLM release kept it outside the KV pool (see notes)`}`,
      value: `${mamba.layers.length} layers · ${bytesAndCount((e.mambaStateBytesPerSeq ?? 0) / mamba.layers.length)} = ${bytesAndCount(e.mambaStateBytesPerSeq ?? 0)}${tp > 1 ? ' per GPU' : ''}`,
      keys: ['mamba_d_state', 'ssm_state_size', 'mamba_d_conv', 'conv_kernel', 'mamba_expand', 'mamba_n_heads', 'mamba_num_heads', 'mamba_d_head', 'mamba_head_dim', 'n_groups', 'mamba_n_groups',
        'linear_num_key_heads', 'linear_num_value_heads', 'linear_key_head_dim', 'linear_value_head_dim', 'linear_conv_kernel_dim', 'num_attention_heads', 'head_dim', 'conv_dim', 'conv_L_cache', 'dtype', 'tensor_parallel_size'],
    });
  }
  // A grouped pool's page is a block in each KV-cache group (core/estimate poolTokenPages): the page_size
  // hint's "× 2.63 MiB" is this row's value; vLLM's block (one group's layers) is in its formula.
  const groups = kvCacheGroups(e.pool.layout);
  rows.push({
    id: 'page',
    term: grouped(e.pool.layout) ? `Page (a block in each of the ${groups} KV-cache groups)` : 'Page (all layers)',
    formula: grouped(e.pool.layout)
      ? `groups · block = ${groups} · ${formatBytes(e.pageBytes)}; a block (vLLM's) = ${pageSizeTerm(e, p.kvCache.pageSize)} · group size · KV per token per layer = ${formatCount(e.pool.layout.pageSize)} · ${e.pool.layout.groupSize} · ${formatBytes(e.kvBytesPerTokenPerLayer)} (${e.pool.layout.basis})`
      : `page_size · KV per token = ${p.kvCache.pageSize} · ${formatBytes(e.kvBytesPerToken)}`,
    value: `${bytesAndCount(tokenPageBytes(e.pool.layout, e.pageBytes))}${perGpu}`,
    keys: ['page_size', ...kvKeys, 'kv_cache.dtype', 'pipeline_parallel_size'],
  });
  let budget: string;
  switch (e.pool.budgetSource) {
    case 'explicit':
      budget = typeof p.kvCache.numPages === 'number' ? `kv_cache.num_pages · ${grouped(e.pool.layout) ? 'block' : 'page'} = ${formatCount(p.kvCache.numPages)} · ${formatBytes(e.pageBytes)}` : `kv_cache.memory_gib = ${String(p.kvCache.memoryGib)} GiB`;
      break;
    case 'device':
      // The terms, each with its value and source, are a table of their own (budgetMarkdown).
      budget = `usable − ${e.pool.reserve.filter((t) => t.subtracted).map((t) => t.label).join(' − ')} (term by term below)`;
      break;
    default:
      budget = 'not sized: set device.gpu, device.memory_gib or kv_cache.memory_gib';
  }
  rows.push({
    id: 'budget',
    term: 'KV budget',
    formula: budget,
    value: e.pool.budgetSource === 'none' ? '—' : `${formatBytes(e.pool.budgetBytes)}${perGpu}`,
    keys: ['memory_gib', 'gpu', 'gpu_memory_utilization', 'num_pages', 'max_num_batched_tokens', 'max_num_seqs', 'tensor_parallel_size', 'pipeline_parallel_size', 'cpu_offload_gb', 'dtype', 'vllm_version', 'non_torch_gib', 'nccl_gib', 'cuda_graph_gib', 'activation_gib'],
  });
  const sized = e.pool.budgetSource !== 'none';
  const blocks = poolBlocksText(e.pool.layout, e.pool.pages);
  // Unsized, the tokens are the formula in words, not "floor(0 / 7 groups) · 16 = 0 tokens" (s37 newcomer 7).
  const tokens = sized ? blocks.tokens : `${poolTokensFormula(e.pool.layout, grouped(e.pool.layout) ? 'blocks' : 'pages', 'page_size')}${poolGroupsWhy(e.pool.layout)}`;
  rows.push({
    id: 'pool',
    term: 'Page pool',
    formula: grouped(e.pool.layout)
      ? `floor(budget / block) blocks of ${blocks.block}; tokens as vLLM's log counts them: ${tokens}`
      : `floor(budget / page) pages of ${blocks.block}; tokens: ${tokens}`,
    value: sized
      ? grouped(e.pool.layout)
        ? `${formatCount(e.pool.pages)} blocks = ${formatCount(poolTokenPages(e.pool.layout, e.pool.pages))} pages (a block in each of the ${groups} groups) · ${formatCount(e.pool.tokens)} tokens`
        : `${formatCount(e.pool.pages)} pages · ${formatCount(e.pool.tokens)} tokens`
      : 'not sized (no budget)',
    keys: ['page_size', 'memory_gib', 'gpu', 'gpu_memory_utilization', 'num_pages', 'cpu_offload_gb', ...kvKeys, 'kv_cache.dtype'],
  });
  rows.push(reservationRow(a, e.pool.concurrencySeqLen));
  // The pool's concurrency is vLLM's figure; the scheduler runs at most max_num_seqs at once.
  const seqCap = maxNumSeqsOf(p);
  const capped = sized && seqCap < e.pool.sequencesAtOnce ? `; max_num_seqs ${formatCount(seqCap)}${p.workload?.maxNumSeqs === undefined ? " (vLLM's default)" : ''} binds first: the engine runs at most ${formatCount(seqCap)} at once` : '';
  // vLLM's max concurrency, with its start-up line quoted in its own words and format, and the whole
  // sequences (its floor) the editor's max_model_len hint shows ("164 seqs fit": s50 newcomer-ed 11 read
  // the bare "164.40x" as an unexplained figure).
  const N = e.pool.concurrencySeqLen;
  const l = e.pool.layout;
  const source = "vLLM's get_max_concurrency_for_kv_cache_config, vllm/v1/core/kv_cache_utils.py, which its start-up log prints";
  const blocksNow = sized ? formatCount(e.pool.pages) : grouped(l) ? 'blocks' : 'pages';
  rows.push({
    id: 'concurrency',
    term: 'Max concurrency',
    formula: l.kind !== 'uniform'
      ? `blocks / blocks one request reserves = ${blocksNow} / ${formatCount(e.pool.blocksPerSeq)} at N = ${formatCount(N)}: ${blocksPerRequestFormula(l)} (${l.basis}; ${source}); its floor = whole sequences at once`
      : `pages / ceil(N / page_size) = ${blocksNow} / ceil(${formatCount(N)} / ${l.pageSize}) = ${blocksNow} / ${formatCount(e.pool.blocksPerSeq)} (${source}); its floor = whole sequences at once`,
    value: sized ? `${formatCount(e.pool.sequencesAtOnce)} sequences of ${formatCount(N)} tokens at once (vLLM's "${vllmConcurrencyLine(N, e.pool.maxConcurrency)}")${capped}` : 'not sized (no budget)',
    keys: ['max_model_len', key(m, 'maxPositionEmbeddings', 'max_position_embeddings'), 'page_size', 'memory_gib', 'gpu', 'max_num_seqs', 'kv_cache.dtype', ...windowKeys(m)],
  });
  const w = e.attention;
  rows.push(...workspaceRows(a, w));
  return rows;
}

/**
 * What one request of `n` tokens reserves in the pool (core/estimate requestReservation, the
 * figure max concurrency divides by), with the KV the sequence holds at steady state beside it
 * where the two differ (sliding-window layers).
 */
function reservationRow(a: Analysis, n: number): TermRow {
  const e = a.estimate!;
  const p = a.profile!;
  const m = a.model!;
  const l = e.pool.layout;
  const ps = l.pageSize;
  const r = requestReservation(l, n);
  const held = kvBytesForSequence(perGpuModel(m, e), n, e.kvDtype, p.device.tensorParallelSize);
  const unit = grouped(l) ? 'block' : 'page';
  const formula = l.kind === 'uniform'
    ? `ceil(N / page_size) pages · page = ceil(${formatCount(n)} / ${ps}) · ${formatBytes(l.blockBytes)}`
    : `${formatCount(r.blocks)} blocks (${blocksPerRequestFormula(l)}) · ${formatBytes(l.blockBytes)} per ${unit}`;
  // Llama 4's chunked layers keep at most their chunk; in vLLM's one KV-cache group (l.basis, releases with the hybrid manager off for them) every layer is charged every token.
  const keep = isChunkedLocalAttention(m) ? `chunked-attention layers keep at most attention_chunk_size = ${formatCount(m.slidingWindow ?? 0)}` : `sliding-window layers keep ${formatCount(m.slidingWindow ?? 0)}`;
  // mamba_cache_mode "all" reserves a state block per block of tokens; "none" / "align" a fixed 1 or 2.
  const perGroup = l.mambaCacheMode === 'all' ? Math.ceil(n / ps) : l.stateBlocks;
  const state = l.mambaGroups * perGroup;
  const steady = l.kind === 'mamba'
    ? `; ${formatCount(state)} of the blocks are the Mamba groups' state blocks (${formatBytes(state * l.blockBytes)}: the ${formatBytes(e.mambaStateBytesPerSeq ?? 0)} of state${perGroup > 1 ? ` held ${formatCount(perGroup)} times${l.mambaCacheMode === 'all' ? ', once per block of tokens (mamba_cache_mode "all")' : ''}` : ''}, each layer's padded to an attention page of ${formatCount(ps)} tokens)`
    : r.bytes > held ? `; more than the ${formatBytes(held)} the sequence holds at steady state (${keep} tokens): ${l.kind === 'uniform' ? l.basis : (l.chunkedGroups ?? 0) > 0 ? 'the pool sets aside attention_chunk_size + max_num_batched_tokens tokens for them' : 'the pool sets aside window − 1 + max_num_batched_tokens tokens for them'}` : '';
  const gpu = e.pipeline ? ` per GPU (stage ${e.pipeline.stage + 1} of ${e.pipeline.size})` : p.device.tensorParallelSize > 1 ? ' per GPU' : '';
  return {
    id: 'reserved',
    term: `Reserved per request at N = ${formatCount(n)}`,
    formula: `${formula}${steady} (vLLM's check_enough_kv_cache_memory, the figure max concurrency divides by)`,
    value: `${bytesAndCount(r.bytes)}${gpu}`,
    keys: ['max_model_len', key(m, 'maxPositionEmbeddings', 'max_position_embeddings'), 'page_size', 'max_num_batched_tokens', 'vllm_version', 'disable_hybrid_kv_cache_manager', 'mamba_cache_mode', 'kv_cache.dtype', ...windowKeys(m)],
  };
}

/**
 * The config keys that say which layers slide and how far, for a model with sliding-window (or
 * chunked-attention) layers: they set what a request reserves, and so the max concurrency
 * (gpt-oss-20b: 3.19 GiB reserved per request at 8,192 tokens, 6 GiB were every layer full).
 * The `layer_types` hover said it did not change the estimate (s48 newcomer-ed 3). [] otherwise.
 */
function windowKeys(m: ModelSpec): string[] {
  return m.slidingWindow === null ? [] : ['sliding_window', 'layer_types', 'sliding_window_pattern', 'use_sliding_window', 'max_window_layers', 'attention_chunk_size'];
}

/**
 * The prefill workspace's two rows (naive S and P, flash's m, l, lse) at `w`'s length N, each
 * term naming that N: the estimate's at its reference length (max_model_len), the seq_lens hint
 * and hover's at the longest seq_len.
 */
export function workspaceRows(a: Analysis, w: AttentionWorkspace): TermRow[] {
  const p = a.profile!;
  const m = a.model!;
  const B = p.prefill.batchSize;
  const tp = p.device.tensorParallelSize;
  // The estimate's rows are at its reference length (max_model_len); seq_lens sizes its hint's rows, not these.
  const keys = ['max_model_len', key(m, 'maxPositionEmbeddings', 'max_position_embeddings'), 'batch_size', key(m, 'numHeads', 'num_attention_heads'), 'dtype', 'tensor_parallel_size'];
  // Under tensor parallelism each GPU computes H / tp heads: its workspace is that share.
  const H = tp > 1 ? 'H/tp' : 'H';
  const heads = headsPerGpu(m, tp);
  const perGpu = tp > 1 ? ', per GPU' : '';
  const total = (bytes: number): string => (tp > 1 ? `${formatBytes(bytes)} per GPU, ${formatBytes(bytes * tp)} on ${tp} GPUs` : formatBytes(bytes));
  return [
    {
      id: 'naive',
      term: `Naive attention per layer at N = ${formatCount(w.seqLen)}${perGpu}`,
      formula: `S and P: 2 · B · ${H} · N · N · bytes = 2 · ${B} · ${heads} · ${formatCount(w.seqLen)}² · ${dtypeBytes(p.dtype)}`,
      value: total(w.naiveBytes),
      keys,
    },
    {
      id: 'flash',
      term: `Flash workspace per layer at N = ${formatCount(w.seqLen)}${perGpu}`,
      formula: `m, l, lse in fp32: 3 · B · ${H} · N · 4 = 3 · ${B} · ${heads} · ${formatCount(w.seqLen)} · 4 (S, P stay in tiles)`,
      value: total(w.flashBytes),
      keys,
    },
  ];
}

/**
 * The device-derived KV budget term by term, one per row with its value and source: usable
 * (device memory · gpu_memory_utilization), each subtracted reserve term (core/estimate/reserve.ts:
 * a modelled term's source is its few-word basis; the full one is in `attnscope estimate --json`),
 * the budget, then the terms the engine does not subtract, why, and the key that would. '' when the budget is not
 * derived from the device (explicit, or not sized): its one-line formula says all.
 */
export function budgetMarkdown(a: Analysis): string {
  const e = a.estimate;
  const p = a.profile;
  if (e === null || p === null || e.pool.budgetSource !== 'device') return '';
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const tp = p.device.tensorParallelSize;
  const source = (t: (typeof e.pool.reserve)[number]): string => (t.origin === 'profile' ? t.source : t.basis);
  const rows: Array<[string, string, string]> = [
    ['usable', formatBytes(e.pool.usableBytes), `${e.pool.deviceSource} · gpu_memory_utilization ${p.device.gpuMemoryUtilization}`],
    ...e.pool.reserve.filter((t) => t.subtracted).map((t): [string, string, string] => [`− ${t.label}`, formatBytes(t.bytes), source(t)]),
    ['**= KV budget**', `**${formatBytes(e.pool.budgetBytes)}**`, ''],
    ...e.pool.reserve.filter((t) => !t.subtracted).map((t): [string, string, string] => [`not subtracted: ${t.label}`, t.bytes > 0 ? formatBytes(t.bytes) : '—', `${t.basis}; ${engineKeyOf(t.key)} subtracts it`]),
  ];
  return [`KV budget term by term${tp > 1 ? ', per GPU' : ''}:`, '', '| Term | Value | Source |', '|---|---|---|', ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

/** A markdown table of rows. */
export function table(rows: TermRow[], highlight: ReadonlySet<TermId> = new Set()): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const lines = ['| Term | Formula | Value |', '|---|---|---|'];
  for (const r of rows) {
    const name = highlight.has(r.id) ? `**${r.term}**` : r.term;
    lines.push(`| ${name} | ${esc(r.formula)} | ${highlight.has(r.id) ? `**${esc(r.value)}**` : esc(r.value)} |`);
  }
  return lines.join('\n');
}

function pick(a: Analysis, ids: TermId[]): string {
  return table(termRows(a).filter((r) => ids.includes(r.id)));
}

/** The weights rows; `withKv` adds the KV-per-token row (the profile's `model:` hint shows both). */
export const weightsMarkdown = (a: Analysis, withKv = false): string => pick(a, withKv ? ['params', 'active', 'weights', 'kvToken'] : ['params', 'active', 'weights']);
export const kvMarkdown = (a: Analysis): string => pick(a, ['kvLayer', 'kvToken', 'mambaState']);
export const poolMarkdown = (a: Analysis): string => [pick(a, ['page', 'budget', 'pool']), budgetMarkdown(a)].filter((s) => s !== '').join('\n\n');
export const concurrencyMarkdown = (a: Analysis): string => pick(a, ['pool', 'reserved', 'concurrency']);
/** The reservation of one `n`-token request (the max_position_embeddings hint). */
export const reservationMarkdown = (a: Analysis, n: number): string => table([reservationRow(a, n)]);

/**
 * The KV one sequence of `n` tokens holds (core/estimate kvBytesForSequence: full-attention
 * layers every token, sliding-window layers at most the window, linear-attention layers none),
 * its formula with this file's numbers; under tensor parallelism one GPU's share, and what the tp
 * GPUs hold together (tp · per GPU: KV heads split, or replicated where tp > H_kv or the cache is
 * MLA's latent). For a sliding-window model it says what the pool reserves instead (more).
 */
export function kvForSeqRow(a: Analysis, n: number): TermRow {
  const p = a.profile!;
  const m = p.model;
  const e = a.estimate!;
  const tp = p.device.tensorParallelSize;
  // Under pipeline parallelism one stage's layers (Estimate.pipeline.stage), held by its tp GPUs.
  const sm = perGpuModel(m, e);
  const stage = e.pipeline ? ` (stage ${e.pipeline.stage + 1} of ${e.pipeline.size})` : '';
  const bytes = kvBytesForSequence(sm, n, e.kvDtype, tp);
  const sliding = m.slidingWindow !== null && m.layerTypes.includes('sliding');
  const perToken = tp > 1 || stage ? `KV per token per GPU${stage}` : 'KV per token';
  let formula: string;
  if (sliding) {
    const count = (kind: string): number => kvCacheLayerTypes(sm).filter((k) => k === kind).length;
    const full = count('full');
    const slid = count('sliding');
    const w = m.slidingWindow!;
    // Llama 4's chunked layers hold at most their chunk (attention_chunk_size), not a window.
    const kind = isChunkedLocalAttention(m) ? 'chunked-attention layers · min(N, attention_chunk_size)' : 'sliding-window layers · min(N, window)';
    formula = `(full-attention layers · N + ${kind}) · ${perToken} per layer = (${full} · ${formatCount(n)} + ${slid} · ${formatCount(Math.min(n, w))}) · ${formatCount(e.kvBytesPerTokenPerLayer)} B`;
  } else {
    formula = `N · ${perToken} = ${formatCount(n)} · ${formatBytes(e.kvBytesPerToken)}`;
  }
  if (tp > 1) formula += `; the ${tp} GPUs${stage ? ' of the stage' : ''} hold ${tp} · ${formatBytes(bytes)} = ${formatBytes(bytes * tp)} of it together`;
  const reserved = requestReservation(e.pool.layout, n).bytes;
  if (sliding && reserved !== bytes) formula += `; the KV it holds at steady state, not what the pool reserves for it (${formatBytes(reserved)}${tp > 1 || stage ? ` per GPU${stage}` : ''}: see Reserved per request in the hover)`;
  return {
    id: 'kvToken',
    term: `KV held by one ${formatCount(n)}-token sequence${tp > 1 || stage ? `, per GPU${stage}` : ''}`,
    formula,
    value: tp > 1 ? `${bytesAndCount(bytes)} per GPU${stage}, ${formatBytes(bytes * tp)} on ${tp} GPUs${stage ? ' of the stage' : ''}` : `${bytesAndCount(bytes)}${stage ? ` per GPU${stage}` : ''}`,
    keys: ['context_lens'],
  };
}

/** The decode.context_lens hint's tooltip: kvForSeqRow at the longest length `n`. */
export function kvForSeqMarkdown(a: Analysis, n: number): string {
  return table([kvForSeqRow(a, n)]);
}

export function workspaceMarkdown(a: Analysis, w: AttentionWorkspace): string {
  return table(workspaceRows(a, w));
}
