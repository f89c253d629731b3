/**
 * Block counts of vLLM's KV pool for a {@link KvPoolLayout} (core/estimate/index.ts
 * kvPoolLayout): what one request reserves and how many tokens the pool reports. Every count is
 * in the layout's own block size (layout.pageSize: kv_cache.page_size, or vLLM's raised attention
 * block size for a hybrid Mamba model).
 */
import type { KvPoolLayout } from './types';
import { formatCountOf } from '../format';

/**
 * KV-cache groups of the pool: full-attention + sliding-window + chunked local-attention + Mamba
 * groups (1 for a uniform or all-sliding pool). vLLM's token count divides the blocks by it
 * ({@link poolTokens}). Llama-4-Scout with the hybrid manager: 1 + 3 = 4; Jamba-v0.1: 1 + 7 = 8.
 */
export function kvCacheGroups(layout: KvPoolLayout): number {
  return layout.fullGroups + layout.slidingGroups + (layout.chunkedGroups ?? 0) + layout.mambaGroups;
}

/** Whether the pool has KV-cache groups of several types ('hybrid', 'mamba'): a block is one group's layers, and the token count divides by the groups. */
export function grouped(layout: KvPoolLayout): boolean {
  return layout.kind === 'hybrid' || layout.kind === 'mamba';
}

/**
 * Blocks one request of `seqLen` tokens can take at most, per group summed, as vLLM's max
 * concurrency counts them (kv_cache_utils.get_max_concurrency_for_kv_cache_config: cdiv of
 * group_size · Σ_groups spec.max_memory_usage_bytes by the block's bytes):
 * - a full-attention group: ceil(N / block_size) (FullAttentionSpec.max_memory_usage_bytes);
 * - a sliding-window group: ceil(min(W − 1 + max_num_batched_tokens, N) / block_size) + 1
 *   (SlidingWindowSpec.max_memory_usage_bytes: the last W − 1 computed tokens plus one step's
 *   new ones, +1 block as the window need not start at a block boundary);
 * - a chunked local-attention group: ceil(min(C + max_num_batched_tokens, N) / block_size)
 *   (ChunkedLocalAttentionSpec.max_memory_usage_bytes, vllm/v1/kv_cache_interface.py: at most the
 *   attention_chunk_size C computed tokens plus one step's new ones, no +1);
 * - a Mamba group: stateBlocks, whatever N (MambaSpec.max_memory_usage_bytes: one page with
 *   mamba_cache_mode "none", two with "align"); with "all" ceil(N / block_size)
 *   (MambaSpec.max_memory_usage_bytes: cdiv(max_model_len, block_size) pages, vllm-project/vllm bc8282e).
 * Uniform layout: ceil(N / block_size); 'sliding' (every layer slides): the sliding group's alone.
 * Llama-4-Scout, page_size 16, max_num_batched_tokens 8,192, N = 131,072: 8,192 + 3 · 1,024 = 11,264.
 * Jamba-v0.1 bf16 at N = 262,144 (block_size 80, 1 attention + 7 Mamba groups, "none"): 3,277 + 7 = 3,284.
 */
export function blocksPerRequest(layout: KvPoolLayout, seqLen: number): number {
  const ps = layout.pageSize;
  const full = Math.ceil(seqLen / ps);
  if (layout.kind === 'uniform') return full;
  const chunkedGroups = layout.chunkedGroups ?? 0;
  const slid = layout.slidingGroups > 0 ? Math.ceil(Math.min(layout.window - 1 + layout.maxNumBatchedTokens, seqLen) / ps) + 1 : 0;
  const chunked = chunkedGroups > 0 ? Math.ceil(Math.min((layout.chunk ?? 0) + layout.maxNumBatchedTokens, seqLen) / ps) : 0;
  const state = layout.mambaCacheMode === 'all' ? full : layout.stateBlocks;
  return layout.fullGroups * full + layout.slidingGroups * slid + chunkedGroups * chunked + layout.mambaGroups * state;
}

/**
 * What one request of `seqLen` tokens reserves in the pool, per GPU: {@link blocksPerRequest}
 * blocks of the layout's blockBytes. The one figure vLLM's max concurrency divides the pool by
 * and its start-up check needs (check_enough_kv_cache_memory, Σ max_memory_usage_bytes): the
 * estimate's pool.seqNeededBytes, the CLI's "request reserves" note and the editor's
 * max_model_len / max_position_embeddings hints all come from here. For a sliding-window or
 * hybrid layout it is more than the KV the sequence holds at steady state (kvBytesForSequence):
 * the sliding-window groups are charged window − 1 + max_num_batched_tokens tokens, not the
 * window; a Mamba layout adds its state blocks, padded to an attention page.
 * gpt-oss-20b, page_size 16, max_num_batched_tokens 2048, N = 16,384: 1,024 + 137 = 1,161 blocks
 * of 384 KiB = 435.4 MiB.
 */
export function requestReservation(layout: KvPoolLayout, seqLen: number): { blocks: number; bytes: number } {
  const blocks = blocksPerRequest(layout, seqLen);
  return { blocks, bytes: blocks * layout.blockBytes };
}

/**
 * How {@link blocksPerRequest} counts, in words with the layout's figures, for the CLI and the
 * editor's hover: "1 full-attention group · ceil(N / page_size) + 1 sliding-window group ·
 * (ceil(min(128 − 1 + 2,048, N) / page_size) + 1)", or for a Mamba layout
 * "1 attention group · ceil(N / 80) + 7 Mamba groups · 1".
 */
export function blocksPerRequestFormula(layout: KvPoolLayout): string {
  if (layout.kind === 'uniform') return 'ceil(N / page_size)';
  if (layout.kind === 'mamba') return `${formatCountOf(layout.fullGroups, 'attention group')} · ceil(N / ${layout.pageSize}) + ${formatCountOf(layout.mambaGroups, 'Mamba group')} · ${layout.mambaCacheMode === 'all' ? `ceil(N / ${layout.pageSize})` : layout.stateBlocks}`;
  const slid = `(ceil(min(${layout.window} − 1 + ${layout.maxNumBatchedTokens}, N) / page_size) + 1)`;
  if (layout.kind === 'sliding') return slid.slice(1, -1);
  const parts = [`${formatCountOf(layout.fullGroups, 'full-attention group')} · ceil(N / page_size)`];
  if (layout.slidingGroups > 0) parts.push(`${formatCountOf(layout.slidingGroups, 'sliding-window group')} · ${slid}`);
  if ((layout.chunkedGroups ?? 0) > 0) parts.push(`${formatCountOf(layout.chunkedGroups!, 'chunked-attention group')} · ceil(min(${layout.chunk} + ${layout.maxNumBatchedTokens}, N) / page_size)`);
  return parts.join(' + ');
}

/**
 * Tokens a pool of `blocks` blocks holds, as vLLM's "GPU KV cache size: N tokens" line counts
 * them (kv_cache_utils._report_kv_cache_config: num_blocks // number of groups · block_size,
 * Mamba groups included).
 */
export function poolTokens(layout: KvPoolLayout, blocks: number): number {
  return poolTokenPages(layout, blocks) * layout.pageSize;
}

/**
 * Pages of `blocks` as the token count counts them: a page is a block in every KV-cache group
 * (layout.pageSize tokens of every layer), floor(blocks / groups), so pages · block size =
 * {@link poolTokens} with nothing else in between; a uniform pool's pages are its blocks. The
 * editor's page_size hint counts these, so that its figures multiply out as written (s50
 * newcomer-ed 5: gemma-2-9b's "48,123 blocks = 384,976 tokens" read as wrong arithmetic, 48,123
 * · 16 = 769,968): gemma-2-9b at tp 2, 2 groups: floor(48,123 / 2) = 24,061 pages · 16 = 384,976.
 */
export function poolTokenPages(layout: KvPoolLayout, blocks: number): number {
  return Math.floor(blocks / kvCacheGroups(layout));
}

/**
 * Bytes of one {@link poolTokenPages} page on one GPU: `blockBytes` (Estimate.pageBytes, a
 * block of one group's layers) · the groups; a uniform pool's block. gemma-2-9b at tp 2, bf16:
 * 2 · 16 · 21 layers · 4,096 B = 2,752,512 B (2.63 MiB).
 */
export function tokenPageBytes(layout: KvPoolLayout, blockBytes: number): number {
  return blockBytes * kvCacheGroups(layout);
}

/**
 * How vLLM's "GPU KV cache size" turns blocks into tokens, over the given operands (words or
 * figures): "blocks · page_size", or for a hybrid or Mamba layout "floor(blocks / 2 groups) ·
 * page_size" (kv_cache_utils._report_kv_cache_config); {@link poolTokens} computes it.
 */
export function poolTokensFormula(layout: KvPoolLayout, blocks: string, pageSize: string): string {
  return grouped(layout) ? `floor(${blocks} / ${kvCacheGroups(layout)} groups) · ${pageSize}` : `${blocks} · ${pageSize}`;
}

/**
 * The inverse of {@link poolTokensFormula}, the blocks behind a logged token count: "tokens /
 * page_size", for a hybrid layout "tokens / page_size · 2 groups".
 */
export function poolBlocksFormula(layout: KvPoolLayout, tokens: string, pageSize: string): string {
  return grouped(layout) ? `${tokens} / ${pageSize} · ${kvCacheGroups(layout)} groups` : `${tokens} / ${pageSize}`;
}

/** Why a grouped pool's token count divides by the groups ('' for one group), after its formula. */
export function poolGroupsWhy(layout: KvPoolLayout): string {
  if (layout.kind === 'mamba') return ` (vLLM divides the blocks by all ${kvCacheGroups(layout)} groups, ${layout.mambaGroups === 1 ? 'the Mamba group\'s' : `the ${layout.mambaGroups} Mamba groups'`} included, though a request holds only ${formatCountOf(layout.stateBlocks, 'block')} of each Mamba group)`;
  return layout.kind === 'hybrid' ? ` (a token takes a block slot in each of the ${kvCacheGroups(layout)} groups)` : '';
}

/**
 * What a block of the pool holds and how vLLM's log turns blocks into tokens, in words, for the
 * CLI, the simulation and the editor (one wording): uniform and all-sliding pools "16 tokens of
 * all 24 layers" and blocks · page_size; a hybrid pool "16 tokens of one KV-cache group's 12
 * layers" and floor(blocks / groups) · page_size, as a token takes a block slot in every group
 * (kv_cache_utils._report_kv_cache_config); a Mamba pool "80 tokens of one attention group's 4
 * layers, or one Mamba state of a Mamba group's 4 layers".
 */
export function poolBlocksText(layout: KvPoolLayout, blocks: number): { block: string; tokens: string } {
  const n = (x: number): string => x.toLocaleString('en-US');
  const block = layout.kind === 'mamba'
    ? `${n(layout.pageSize)} tokens of one attention group's ${layout.groupSize} layers, or one Mamba state of a Mamba group's ${layout.groupSize} layers`
    : layout.kind === 'hybrid' ? `${n(layout.pageSize)} tokens of one KV-cache group's ${layout.groupSize} layers` : `${n(layout.pageSize)} tokens of all ${layout.groupSize} layers`;
  return {
    block,
    tokens: `${poolTokensFormula(layout, n(blocks), String(layout.pageSize))} = ${n(poolTokens(layout, blocks))} tokens${poolGroupsWhy(layout)}`,
  };
}
