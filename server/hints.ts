/**
 * Inlay hints: the memory each key costs, written right after its value and recomputed on every
 * edit (the client re-pulls hints after a change; the server asks it to when a file a profile
 * reads changes). Every number comes from core's Estimate or core/estimate functions, every
 * figure is formatted by core/format (IEC bytes, thousands separators):
 *   num_key_value_heads / head_dim  ->  KV 128 KiB/token
 *   kv_cache.page_size              ->  page 2 MiB · 1,952 pages · 31,232 tokens
 *   model (profile) / model_type    ->  weights 15 GiB · 8.03B params (and active for MoE)
 *   prefill.seq_lens                ->  naive S+P vs flash workspace at the longest length
 *   device.memory_gib               ->  KV budget = usable memory − weights − activation peak
 *   decode.context_lens, max_position_embeddings, workload.max_model_len -> KV of one sequence
 */
import { InlayHintKind, MarkupKind, type InlayHint, type Range } from 'vscode-languageserver';
import type { ModelSpec, SourceRange } from '../core/config';
import { attentionWorkspace, kvBytesForSequence } from '../core/estimate';
import { formatBytes, formatCount, formatParams } from '../core/format';
import type { Analysis } from './analysis';
import { modelKeyRange, profileKeyRange, propertyWithValueAt } from './locate';
import * as terms from './terms';

/**
 * Where a hint for the value at `at` goes: after a value on its key's line; after `key:` when the
 * value is a block that starts on the next line (an inline model, a YAML list), so the hint reads
 * on the key's line rather than at the start of the next key.
 */
function anchorOffset(a: Analysis, at: SourceRange): number {
  const text = a.text;
  let end = at.offset + at.length;
  while (end > at.offset && /\s/.test(text[end - 1]!)) end--;
  const found = propertyWithValueAt(a.tree, at.offset);
  if (found !== null) {
    const keyEnd = found.property.keyRange.offset + found.property.keyRange.length;
    if (text.slice(keyEnd, at.offset).includes('\n')) {
      const colon = text.indexOf(':', keyEnd);
      return colon >= 0 && colon < at.offset ? colon + 1 : keyEnd;
    }
  }
  return end;
}

function hintAt(a: Analysis, at: SourceRange, label: string, tooltip: string): InlayHint {
  return {
    position: a.document.positionAt(anchorOffset(a, at)),
    label,
    kind: InlayHintKind.Type,
    paddingLeft: true,
    tooltip: { kind: MarkupKind.Markdown, value: tooltip },
  };
}

function within(a: Analysis, h: InlayHint, range: Range): boolean {
  const off = a.document.offsetAt(h.position);
  return off >= a.document.offsetAt(range.start) && off <= a.document.offsetAt(range.end);
}

/** Where the KV-per-token hint goes: after num_key_value_heads and an explicit head_dim (MLA: kv_lora_rank), else after the head count. */
function kvAnchors(a: Analysis, model: ModelSpec): SourceRange[] {
  const fields = model.mla ? ['kv_lora_rank'] : [model.sourceKeys.numKvHeads, model.headDimExplicit ? model.sourceKeys.headDim : undefined];
  const anchors = fields.flatMap((path) => {
    const r = path === undefined ? undefined : modelKeyRange(a, path);
    return r === undefined ? [] : [r];
  });
  if (anchors.length > 0) return anchors;
  const heads = model.sourceKeys.numHeads === undefined ? undefined : modelKeyRange(a, model.sourceKeys.numHeads);
  return heads === undefined ? [] : [heads];
}

/** Where the weights hint goes: the profile's `model` value, or a config's model_type / architectures. */
function weightsAnchor(a: Analysis): SourceRange | undefined {
  if (a.kind === 'profile') return profileKeyRange(a, 'model');
  return modelKeyRange(a, 'model_type') ?? modelKeyRange(a, 'architectures');
}

/** Inlay hints of the analysed document that fall inside `range`. */
export function inlayHints(a: Analysis, range: Range): InlayHint[] {
  const e = a.estimate;
  const profile = a.profile;
  const model = a.model;
  if (e === null || profile === null || model === null) return [];
  const hints: InlayHint[] = [];
  const kvLabel = e.hasKvCache ? `KV ${formatBytes(e.kvBytesPerToken)}/token` : 'no KV cache (encoder)';
  const modelIsHere = a.kind === 'config' || profile.modelPath === null;

  const weights = weightsAnchor(a);
  if (weights !== undefined) {
    let label = `weights ${formatBytes(e.weightsBytes)} · ${formatParams(e.paramsTotal)} params`;
    if (model.moe !== null) label += `, ${formatParams(e.paramsActive)} active`;
    if (profile.device.tensorParallelSize > 1) label += ` · ${formatBytes(e.weightsBytesPerGpu)}/GPU`;
    if (!modelIsHere) label += ` · ${kvLabel}`;
    hints.push(hintAt(a, weights, label, terms.weightsMarkdown(a)));
  }
  if (modelIsHere) for (const at of kvAnchors(a, model)) hints.push(hintAt(a, at, kvLabel, terms.kvMarkdown(a)));

  if (e.hasKvCache) {
    const maxPos = model.sourceKeys.maxPositionEmbeddings;
    const maxPosRange = modelIsHere && maxPos !== undefined ? modelKeyRange(a, maxPos) : undefined;
    if (maxPosRange !== undefined && model.maxPositionEmbeddings !== null) {
      hints.push(hintAt(a, maxPosRange, seqKvLabel(a, model.maxPositionEmbeddings), terms.kvForSeqMarkdown(a, model.maxPositionEmbeddings)));
    }
    const memory = profileKeyRange(a, 'device.memory_gib');
    if (memory !== undefined && e.pool.budgetSource === 'device' && profile.device.memoryGib !== null) {
      const usable = profile.device.memoryGib * 1024 ** 3 * profile.device.gpuMemoryUtilization;
      const label = `KV budget ${formatBytes(e.pool.budgetBytes)} = ${formatBytes(usable)} usable − weights ${formatBytes(e.weightsBytesPerGpu)} − activations ${formatBytes(e.pool.activationPeakBytes)}`;
      hints.push(hintAt(a, memory, label, terms.poolMarkdown(a)));
    }
    const page = profileKeyRange(a, 'kv_cache.page_size');
    if (page !== undefined) {
      const pool = e.pool.budgetSource === 'none' ? 'pool not sized: set device.memory_gib or kv_cache.memory_gib' : `${formatCount(e.pool.pages)} pages · ${formatCount(e.pool.tokens)} tokens`;
      hints.push(hintAt(a, page, `page ${formatBytes(e.pageBytes)} · ${pool}`, terms.poolMarkdown(a)));
    }
    const contexts = profileKeyRange(a, 'decode.context_lens');
    if (contexts !== undefined && profile.decode.contextLens.length > 0) {
      const n = Math.max(...profile.decode.contextLens);
      hints.push(hintAt(a, contexts, seqKvLabel(a, n), terms.kvForSeqMarkdown(a, n)));
    }
    const maxModelLen = profileKeyRange(a, 'workload.max_model_len');
    if (maxModelLen !== undefined && profile.workload !== null && e.pool.budgetSource !== 'none') {
      const n = profile.workload.maxModelLen;
      hints.push(hintAt(a, maxModelLen, `${seqKvLabel(a, n)} · ${formatCount(e.pool.maxConcurrency)} fit at once`, terms.concurrencyMarkdown(a)));
    }
  }

  const seqLens = profileKeyRange(a, 'prefill.seq_lens');
  if (seqLens !== undefined && profile.prefill.seqLens.length > 0) {
    const n = Math.max(...profile.prefill.seqLens);
    const w = attentionWorkspace(profile.prefill.batchSize, model.numHeads, n, n, profile.dtype);
    hints.push(hintAt(a, seqLens, `N=${formatCount(n)}: naive S+P ${formatBytes(w.naiveBytes)} vs flash ${formatBytes(w.flashBytes)} per layer`, terms.workspaceMarkdown(a, w)));
  }
  return hints.filter((h) => within(a, h, range));
}

function seqKvLabel(a: Analysis, n: number): string {
  const p = a.profile!;
  const bytes = kvBytesForSequence(p.model, n, a.estimate!.kvDtype, p.device.tensorParallelSize);
  return `KV ${formatBytes(bytes)}/seq at ${formatCount(n)}`;
}
