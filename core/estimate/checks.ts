/**
 * Checks of a resolved profile that need its estimate or the kernels' limits, so that a profile
 * that reads cleanly but cannot be served or benchmarked says so before anything runs: weights
 * or the KV pool not fitting the device (naming the numbers), a pool that cannot hold one
 * max_model_len sequence, and head_dim / page_size / dtypes the chosen backend's kernels do not
 * take. The language server shows them as diagnostics; the CLI can print them the same way.
 */
import { isFp8KvDtype, keyPathsOverlap, type DeviceSpec, type ModelSpec, type Problem, type Profile, type SourceRange } from '../config/types';
import { divisors } from '../config/model';
import { quantizationAlignment } from '../config/quantization';
import { KERNEL_LIMITS, mlaDecodeHeadDim, mlaPrefillHeadDim, softcapNote } from '../kernelLimits';
import { mixerNames } from '../config/mamba';
import { formatBytes, formatBytesApart, formatCount, formatCountOf, formatFactorAsWritten, tpWeightsFormula } from '../format';
import { deviceGpu, gpuByName, pcieX16BytesPerSec, type GpuSpec } from './gpus';
import { blocksPerRequest } from './layout';
import { PP_FIT_SEARCH_MAX } from './pipeline';
import { maxModelLenOf } from './maxModelLen';
import { parseVllmVersion, vllmAtLeast } from './reserve';
import type { Estimate } from './types';

/**
 * The estimate of a profile changed in one device setting, for the checks that name the value
 * that fits (deviceSizesThatFit): core/estimate/index.ts estimate, passed in by its checkProfile
 * and checksIndependentOf, as this module is imported by index.ts (no import cycle).
 */
export type Reestimate = (profile: Profile) => Estimate;

export { KERNEL_LIMITS };



/** Where a model key is: in the profile (inline model), in the config.json it points at (`file`), or the `model` value. */
function modelKey(profile: Profile, key: string | undefined): { range: SourceRange; file?: string } {
  const fallback = profile.ranges['model'] ?? { offset: 0, length: 0 };
  if (key === undefined) return { range: fallback };
  if (profile.modelPath === null) return { range: profile.ranges[`model.${key}`] ?? fallback };
  const range = profile.model.ranges[key];
  return range === undefined ? { range: fallback } : { range, file: profile.modelPath };
}

function profileKey(profile: Profile, ...paths: string[]): SourceRange {
  for (const p of paths) {
    const r = profile.ranges[p];
    if (r !== undefined) return r;
  }
  return profile.ranges['model'] ?? { offset: 0, length: 0 };
}

/**
 * What vLLM's CUDA attention backends take as a KV block size: multiples of this many tokens.
 * FlashAttention (vllm/v1/attention/backends/flash_attn.py, vllm-project/vllm at 5704f34):
 * get_supported_kernel_block_sizes returns [MultipleOf(16)] and get_kv_cache_shape raises "Block
 * size must be a multiple of 16."; the vllm-flash-attn kernel itself checks "Paged KV cache block
 * size must be divisible by 16" (csrc flash_api.cpp). FlashInfer takes 16, 32 or 64, FlashMLA 64:
 * every CUDA backend needs a multiple of 16.
 */
export const VLLM_CUDA_BLOCK_MULTIPLE = 16;

/**
 * The KV block sizes vLLM takes, in tokens: the choices of its `--block-size`, `BlockSize =
 * Literal[1, 8, 16, 32, 64, 128, 256]` in vllm/config/cache.py (vllm-project/vllm, v0.11). With
 * {@link pageSizesFor}, the one source of the page sizes the editor offers (completion), accepts
 * (page-size-unusual, page-size-not-vllm) and suggests (their quick fixes, nearestPageSize).
 */
export const VLLM_BLOCK_SIZES: readonly number[] = [1, 8, 16, 32, 64, 128, 256];

/**
 * The page size vLLM serves `model` with on `gpu` when --block-size is not given, tokens: 64 for
 * an MLA model on a Hopper card (FlashMLA; vllm/platforms/cuda.py raises the block size to 64),
 * 128 on a B200 (CUTLASS MLA), else 16 (CacheConfig's default block_size on CUDA). What "AttnScope: New profile…" writes.
 */
export function vllmDefaultPageSize(model: Pick<ModelSpec, 'mla'>, gpu: string): number {
  return flashMlaPageSizeNote(16, Boolean(model.mla), gpuByName(gpu))?.suggestion ?? 16;
}

/** True when a profile on `gpu` (device.gpu) / `backend` (device.backend) serves on a CUDA GPU. */
function onGpu(gpu: string | undefined, backend: string): boolean {
  return gpu !== undefined || backend === 'cuda';
}

/**
 * The page sizes a profile can use, smallest first: {@link VLLM_BLOCK_SIZES}; on a GPU (`gpu`,
 * device.gpu, set or `backend` cuda) only their multiples of {@link VLLM_CUDA_BLOCK_MULTIPLE}
 * (16, 32, 64, 128, 256); with backend cuda only those in the CUDA kernel's [minPageSize,
 * maxPageSize] (core/kernelLimits.json). Never empty.
 */
export function pageSizesFor(gpu: string | undefined, backend: string): number[] {
  const { minPageSize, maxPageSize } = KERNEL_LIMITS.cuda;
  return VLLM_BLOCK_SIZES.filter((p) =>
    (!onGpu(gpu, backend) || p % VLLM_CUDA_BLOCK_MULTIPLE === 0) && (backend !== 'cuda' || (p >= minPageSize && p <= maxPageSize)));
}

/**
 * The page size of {@link pageSizesFor} (`gpu`, `backend`) nearest `n`, the smaller on a tie:
 * 24 -> 16, 100 -> 128, 1000 -> 256; 8 -> 8 on a CPU, 16 on a GPU.
 */
export function nearestPageSize(n: number, gpu: string | undefined, backend: string): number {
  const sizes = pageSizesFor(gpu, backend);
  let best = sizes[0]!;
  for (const p of sizes) if (Math.abs(p - n) < Math.abs(best - n)) best = p;
  return best;
}

/**
 * Why vLLM does not run `pageSize` as its KV block size on the GPU a profile's `device` serves on
 * (device.gpu, named or described; device.backend): a page size not in {@link pageSizesFor} on a GPU
 * (device.gpu set, or backend cuda). A ROCm GPU (GpuSpec.platform 'rocm': MI300X, or a described
 * GPU whose platform is rocm, core/estimate/gpus.ts userGpu) has the same
 * rule from its own backends, cited as such: vllm/platforms/rocm.py picks ROCM_ATTN, then
 * TRITON_ATTN (MLA: TRITON_MLA, which forces no block size, unlike CUDA's FlashMLA / CUTLASS MLA),
 * and both take multiples of 16; their KV dtypes are CUDA's (auto, float16, bfloat16, fp8,
 * fp8_e4m3, fp8_e5m2). One sentence, with the nearest size to try; null when vLLM
 * runs it or the profile names no GPU. For the editor's and the CLI's warning
 * (vllmPageSizeProblem) and a sweep's best point (runner/sweep/results.ts).
 */
export function vllmPageSizeNote(pageSize: number, device: Pick<DeviceSpec, 'gpu' | 'gpuSpec' | 'backend'>): { text: string; suggestion: number } | null {
  const { gpu, backend } = device;
  if (!onGpu(gpu, backend) || pageSizesFor(gpu, backend).includes(pageSize)) return null;
  const suggestion = nearestPageSize(pageSize, gpu, backend);
  const rocm = deviceGpu(device)?.platform === 'rocm';
  const why = rocm
    ? `${VLLM_BLOCK_SIZES.includes(pageSize) ? '' : `${vllmBlockSizesText()}, and `}its ROCm attention backends take multiples of ${VLLM_CUDA_BLOCK_MULTIPLE} (ROCM_ATTN and TRITON_ATTN kernel block sizes MultipleOf(16), vllm/v1/attention/backends/rocm_attn.py, triton_attn.py: the custom paged-attention kernel runs 16 or 32, the rest the Triton path)`
    : VLLM_BLOCK_SIZES.includes(pageSize)
      ? `its CUDA attention backends take multiples of ${VLLM_CUDA_BLOCK_MULTIPLE} (FlashAttention: "Block size must be a multiple of 16.", vllm/v1/attention/backends/flash_attn.py; FlashInfer 16, 32 or 64)`
      : `${vllmBlockSizesText()}, and its CUDA attention backends multiples of ${VLLM_CUDA_BLOCK_MULTIPLE}`;
  return { text: `page_size ${pageSize} is not a block size vLLM runs on ${gpu ?? 'a CUDA GPU'}: ${why}: try ${suggestion}`, suggestion };
}

/**
 * Why vLLM does not serve an MLA model (`mla`) on `gpu` (device.gpu) at `pageSize`: on a Hopper
 * card vLLM's default MLA backend is FlashMLA, and its CUDA platform raises a block size that is not
 * a multiple of 64 to 64 (vllm/platforms/cuda.py check_and_update_config, "Forcing kv cache block
 * size to 64 for FlashMLA backend.", in vLLM logs from 0.8.3 to 0.11); on a B200 (SM 10.0) the
 * default is CUTLASS MLA, which raises one not a multiple of 128 to 128 (check_and_update_config:
 * `is_device_capability(100)` → use_cutlass_mla, "Forcing kv cache block size to 128 for CUTLASS_MLA
 * backend.", logged on a B200 in vLLM PR #22738, Aug 2025). The GPU's compute capability says which
 * (GpuSpec.computeCapability: a table row's, or a described GPU's compute_capability key, read alike;
 * s43 review: the rule read the table by name, so a described 9.0 card got none): 9.0, where FlashMLA
 * runs (vLLM is_flashmla_dense_supported), or 10.0 (B200). A ROCm GPU (GpuSpec.platform) has neither:
 * its TRITON_MLA forces no block size (vllmPageSizeNote).
 * One sentence and the size vLLM runs (64 or 128); null for a non-MLA model, another GPU, or a
 * multiple of that size. The page-size-flashmla warning's and a
 * sweep's tie-break's one rule (s42 newcomer 5a: the tie-break counted 16 as "a point vLLM runs").
 */
export function flashMlaPageSizeNote(pageSize: number, mla: boolean, spec: GpuSpec | undefined): { text: string; suggestion: number } | null {
  if (!mla || spec === undefined || spec.platform === 'rocm') return null;
  const capability = spec.computeCapability;
  // A described card says the key the rule read: "MyHopper (user-given, compute capability 9.0)".
  const gpu = spec.userGiven ? `${spec.name} (user-given, compute capability ${capability})` : spec.name;
  if (capability === '9.0' && pageSize % 64 !== 0) return { text: `page_size ${pageSize}: vLLM serves this MLA model on ${gpu} with FlashMLA and raises the block size to 64 ("Forcing kv cache block size to 64 for FlashMLA backend.", vllm/platforms/cuda.py)`, suggestion: 64 };
  if (capability === '10.0' && pageSize % 128 !== 0) return { text: `page_size ${pageSize}: vLLM serves this MLA model on ${spec.userGiven ? gpu : `${gpu} (compute capability 10.0)`} with CUTLASS MLA and raises the block size to 128 ("Forcing kv cache block size to 128 for CUTLASS_MLA backend.", vllm/platforms/cuda.py)`, suggestion: 128 };
  return null;
}

/** "its --block-size is one of 1, 8, 16, 32, 64, 128, 256 (vllm/config/cache.py BlockSize)": the source, for messages. */
export function vllmBlockSizesText(): string {
  return `its --block-size is one of ${VLLM_BLOCK_SIZES.join(', ')} (vllm/config/cache.py BlockSize)`;
}

/**
 * A page_size vLLM's CUDA attention backends cannot run (vllmPageSizeNote) as a warning at the
 * value: the figures still hold for the page size as written, but a sweep over page_size would
 * otherwise call a size vLLM refuses the best without a word. Null when vLLM runs it.
 */
function vllmPageSizeProblem(profile: Profile): Problem | null {
  const ps = profile.kvCache.pageSize;
  const note = vllmPageSizeNote(ps, profile.device);
  // A size no vLLM takes is page-size-unusual's (core/config/profileChecks.ts), with the same suggestion.
  if (note === null || !VLLM_BLOCK_SIZES.includes(ps)) return null;
  return {
    severity: 'warning',
    code: 'page-size-not-vllm',
    message: `${note.text}; the figures are for page_size ${ps} as written`,
    range: profileKey(profile, 'kv_cache.page_size', 'kv_cache'),
    data: { suggestion: note.suggestion, multiple: VLLM_CUDA_BLOCK_MULTIPLE },
  };
}

/**
 * The tensor_parallel_size values vLLM accepts for `model`, ascending: divisors of the query heads
 * that the KV heads divide or are divided by (vLLM shards or replicates KV heads; MLA has one
 * latent), that divide every MLP width tensor parallelism splits (a dense MLP's
 * intermediate_size: MergedColumnParallelLinear / RowParallelLinear's divide() asserts it; the
 * routed and shared experts' widths, which FusedMoE shards the same way), and whose shards the
 * quantized weights' groups or fp8 blocks align with (core/config/quantization.ts
 * quantizationAlignment). The vocabulary needs nothing: vLLM pads it (VocabParallelEmbedding, to
 * a multiple of 64 per GPU).
 */
export function tensorParallelSizes(m: ModelSpec): number[] {
  const widths = tpSplitWidths(m);
  return divisors(m.numHeads).filter((t) => (m.mla || m.numKvHeads % t === 0 || t % m.numKvHeads === 0) && widths.every(([, n]) => n % t === 0) && quantizationAlignment(m, t) === null);
}

/**
 * GPUs in one node of the servers vLLM deployments run on (an HGX / DGX node: 8, NVLink between
 * them; vLLM's docs: tensor parallelism within a node, pipeline parallelism across nodes). A size
 * that fits is named alone when it fits in one; else a tp × pp pair is searched ({@link parallelFit}).
 */
export const NODE_GPUS = 8;

/**
 * Parallel sizes above a profile's at which something fits (Estimate.weightsFit; the pool checks'
 * tensor_parallel_size): the smallest tensor_parallel_size vLLM takes for the model
 * ({@link tensorParallelSizes}) above `tp`, pp kept; the smallest pipeline_parallel_size above `pp`
 * up to num_hidden_layers and {@link PP_FIT_SEARCH_MAX}, tp kept; and when neither alone fits on
 * one node ({@link NODE_GPUS}: tp · pp GPUs), the tp × pp pair with both raised, tp within a node,
 * on the fewest GPUs, then the smallest pp (Llama-3.1-405B bf16 at tp 2 on 80 GiB GPUs: tp 16 or pp 6
 * alone, 12 GPUs; tp 4 × pp 3 on 12). Each absent when none fits.
 */
export interface ParallelFit {
  tensorParallelSize?: number;
  pipelineParallelSize?: number;
  pair?: { tensorParallelSize: number; pipelineParallelSize: number };
}

/**
 * The {@link ParallelFit} of `fits(t, p)` from the profile's `tp` and `pp`: one search for the
 * weights (core/estimate weightsFitOf) and the pool checks (`pipeline` false: tensor parallelism
 * alone, each try an estimate). `fits` is called with tp in tensorParallelSizes(model) and pp in
 * 1 .. min(num_hidden_layers, PP_FIT_SEARCH_MAX); it should reject cheaply what cannot fit.
 */
export function parallelFit(model: ModelSpec, tp: number, pp: number, fits: (t: number, p: number) => boolean, opts: { pipeline?: boolean } = {}): ParallelFit {
  const tps = tensorParallelSizes(model).filter((n) => n > tp);
  const tensorParallelSize = tps.find((n) => fits(n, pp));
  const maxPp = opts.pipeline === false ? pp : Math.min(model.numLayers, PP_FIT_SEARCH_MAX);
  let pipelineParallelSize: number | undefined;
  for (let p = pp + 1; p <= maxPp && pipelineParallelSize === undefined; p++) if (fits(tp, p)) pipelineParallelSize = p;
  const inNode = (tensorParallelSize !== undefined && tensorParallelSize * pp <= NODE_GPUS) || (pipelineParallelSize !== undefined && tp * pipelineParallelSize <= NODE_GPUS);
  let pair: ParallelFit['pair'];
  if (!inNode && maxPp > pp) {
    const pairs: Array<[number, number]> = [];
    for (const t of tps) if (t <= NODE_GPUS) for (let p = pp + 1; p <= maxPp; p++) pairs.push([t, p]);
    pairs.sort(([t1, p1], [t2, p2]) => t1 * p1 - t2 * p2 || p1 - p2);
    const found = pairs.find(([t, p]) => fits(t, p));
    if (found) pair = { tensorParallelSize: found[0], pipelineParallelSize: found[1] };
  }
  return { ...(tensorParallelSize !== undefined ? { tensorParallelSize } : {}), ...(pipelineParallelSize !== undefined ? { pipelineParallelSize } : {}), ...(pair ? { pair } : {}) };
}

/** The MLP widths tensor parallelism splits, each with its name for messages ({@link tensorParallelSizes}). */
export function tpSplitWidths(m: ModelSpec): Array<[string, number]> {
  const moe = m.moe;
  const hasDense = moe === null || moe.firstDenseLayers > 0 || moe.mlpOnlyLayers.length > 0 || moe.layerFrequency > 1;
  const widths: Array<[string, number]> = [];
  if (hasDense && m.intermediateSize > 0) widths.push(['intermediate_size', m.intermediateSize]);
  if (moe) widths.push(['the experts\' intermediate size (moe_intermediate_size)', moe.expertIntermediateSize]);
  if (moe && moe.numSharedExperts > 0) widths.push(['the shared experts\' intermediate size', moe.sharedExpertIntermediateSize]);
  return widths;
}

/** Device fit: weights, activation peak and an explicit KV budget against memory · utilization. */
function fitProblems(profile: Profile, e: Estimate, reestimate: Reestimate): Problem[] {
  const d = profile.device;
  if (e.pool.deviceMemoryBytes === 0) return [];
  const usable = e.pool.deviceMemoryBytes * d.gpuMemoryUtilization;
  const device = d.memoryGib !== null ? `${d.memoryGib} GiB` : `${formatBytes(e.pool.deviceMemoryBytes)} (${d.gpu})`;
  const limit = `${device} × ${formatFactorAsWritten(d.gpuMemoryUtilization)} = ${formatBytes(usable)}`;
  const at = profileKey(profile, 'device.memory_gib', 'device.gpu', 'device.gpu_memory_utilization', 'device');
  const tp = d.tensorParallelSize;
  const pp = e.pipeline;
  // One GPU's weights in words; under pipeline parallelism those of stage `s`.
  // `shown`: the per-GPU figure as the message prints it (formatBytes, or more digits beside the usable memory it is compared with).
  const weightsOf = (s: number | undefined, shown: (bytes: number) => string = formatBytes): { perGpu: number; text: string } => {
    const stage = pp && s !== undefined ? pp.stages[s] : undefined;
    const perGpu = stage?.weightsBytesPerGpu ?? e.weightsBytesPerGpu;
    const stageBytes = stage?.weightsBytes ?? e.weightsBytes;
    const copies = (stage ? stage.kvBProjCopiesBytesPerGpu : e.kvBProjCopiesBytesPerGpu) ?? 0;
    const where = stage ? `stage ${s! + 1} of ${pp!.size}, layers ${stage.start}-${stage.end - 1}` : '';
    // device.cpu_offload_gb: perGpu is what stays on the GPU, so the sum subtracts what leaves it
    // (the estimate's note and the reserve's basis say the same).
    const offload = (stage ? stage.cpuOffloadBytesPerGpu : e.cpuOffloadBytesPerGpu) ?? 0;
    const offloaded = offload > 0 ? ` − ${formatBytes(offload)} kept in CPU memory by cpu_offload_gb ${d.cpuOffloadGib}` : '';
    const formula = tpWeightsFormula(stageBytes, tp, stage ? stage.replicated : e.replicated);
    const split = formula ? `${formula}${where ? ` on ${where}` : ''}` : `${formatBytes(stageBytes)}${where ? ` of ${where}` : ''}${tp > 1 ? ` ÷ ${tp}` : ''}`;
    const added = `${copies > 0 ? ` + ${formatBytes(copies)} ${profile.dtype} kv_b_proj copies` : ''}${offloaded}`;
    if (tp > 1 || stage) return { perGpu, text: `weights ${shown(perGpu)} per GPU (${split}${added})` };
    return { perGpu, text: offload > 0 ? `weights ${shown(perGpu)} (${formatBytes(stageBytes)}${added})` : `weights ${shown(perGpu)}${copies > 0 ? ` (${formatBytes(copies)} of them ${profile.dtype} kv_b_proj copies)` : ''}` };
  };
  const weights = weightsOf(pp?.stage).text;
  // vLLM fails to load on any GPU its stage's weights overfill, whichever stage sizes the pool:
  // the heaviest stage is checked (with kv_cache.memory_gib the pool's stage can be a lighter one).
  const heaviest = pp ? pp.stages.reduce((k, st, i) => (st.weightsBytesPerGpu > pp.stages[k].weightsBytesPerGpu ? i : k), pp.stage) : undefined;
  const worst = weightsOf(heaviest);
  if (worst.perGpu > usable) {
    const fit = e.weightsFit ?? {};
    // "fits" where the size leaves room for a KV page too (an estimate at it); else it fits the
    // weights alone, and says so (s52 newcomer: "pipeline_parallel_size (26 fits)" left no KV pool).
    const fitsAt = (device: Partial<Profile['device']>): string => {
      const at = reestimate({ ...profile, device: { ...d, ...device } });
      return !e.hasKvCache || at.pool.pages > 0 || at.pool.budgetSource !== 'device' ? '' : 'the weights only, no KV cache';
    };
    const word = (alone: string): string => (alone ? `fits ${alone.replace('the weights only, no KV cache', 'the weights, not a KV cache')}` : 'fits');
    const raise = [
      ...(fit.tensorParallelSize !== undefined ? [`device.tensor_parallel_size (${fit.tensorParallelSize} ${word(fitsAt({ tensorParallelSize: fit.tensorParallelSize }))})`] : []),
      ...(fit.pipelineParallelSize !== undefined ? [`device.pipeline_parallel_size (${fit.pipelineParallelSize} ${word(fitsAt({ pipelineParallelSize: fit.pipelineParallelSize }))})`] : []),
      ...(fit.pair ? [`both (tensor_parallel_size ${fit.pair.tensorParallelSize} × pipeline_parallel_size ${fit.pair.pipelineParallelSize} fits on ${fit.pair.tensorParallelSize * fit.pair.pipelineParallelSize} GPUs${fit.tensorParallelSize !== undefined || fit.pipelineParallelSize !== undefined ? `, tensor parallelism within an ${NODE_GPUS}-GPU node` : ''}${((alone) => (alone ? `; ${alone}` : ''))(fitsAt(fit.pair!))})`] : []),
    ];
    // A named GPU's memory is its datasheet's, not the user's to raise (s47 newcomer LOW-3): another GPU is.
    const more = d.memoryGib === null && d.gpu ? 'a GPU with more memory (device.gpu)' : 'memory_gib';
    const remedy = raise.length > 0
      ? `raise ${raise.join(', ')}${d.memoryGib === null && d.gpu ? ', or name' : ' or'} ${more}`
      : `${d.memoryGib === null && d.gpu ? 'name' : 'raise'} ${more}: no larger tensor_parallel_size this model takes, and no larger pipeline_parallel_size up to ${Math.min(profile.model.numLayers, PP_FIT_SEARCH_MAX)}, fits the weights alone`;
    // The two figures printed so that "exceed" reads true (core/format formatBytesApart: 5 digits where 3 print "15 ... 15 GiB").
    const [overText, usableText] = formatBytesApart(worst.perGpu, usable);
    const printed = weightsOf(heaviest, (bytes) => (bytes === worst.perGpu ? overText : formatBytes(bytes))).text;
    const over = `${device} × ${formatFactorAsWritten(d.gpuMemoryUtilization)} = ${usableText}`;
    return [{ severity: 'warning', code: 'weights-exceed-device', message: `${printed} exceed ${over}: ${remedy}`, range: at, data: { weightsBytes: worst.perGpu, usableBytes: Math.floor(usable), ...fit } }];
  }
  const activation = e.pool.activationPeakBytes;
  if (e.pool.budgetSource === 'device' && e.hasKvCache && e.pool.pages === 0) {
    const reserve = e.pool.engineReserveBytes > 0 ? ` + engine reserves ${formatBytes(e.pool.engineReserveBytes)}` : '';
    // One page more than the device leaves: what weights, activations and reserves take, and a page.
    const short = e.weightsBytesPerGpu + activation + e.pool.engineReserveBytes + e.pageBytes - usable;
    const sizes = deviceSizesThatFit(profile, e.pool.deviceMemoryBytes, short, (x) => x.pool.pages > 0, reestimate);
    return [{ severity: 'warning', code: 'kv-pool-empty', message: `${weights} + activation peak ${formatBytes(activation)}${reserve} leave no room for a KV page in ${limit}${sizes.text.length > 0 ? `: ${sizes.text.join(', or ')}` : ''}`, range: at, data: sizes.data }];
  }
  const withBudget = e.weightsBytesPerGpu + e.pool.budgetBytes;
  if (e.pool.budgetSource === 'explicit' && withBudget > usable) {
    // The largest budget that fits beside the weights (usable − weights per GPU), in the unit of
    // the key written: pages, or GiB rounded down to 0.01. Dropping the key lets
    // the device size the pool (kv_cache.memory_gib "auto"), unless the other explicit key
    // (num_pages beats memory_gib) then sizes it.
    const pagesKey = typeof profile.kvCache.numPages === 'number';
    // kv_cache.kv_cache_memory_bytes (vLLM's --kv-cache-memory-bytes) is memory_gib in bytes: its fix is in bytes.
    const bytesKey = !pagesKey && profile.ranges['kv_cache.kv_cache_memory_bytes'] !== undefined && profile.ranges['kv_cache.memory_gib'] === undefined;
    const key = pagesKey ? 'kv_cache.num_pages' : bytesKey ? 'kv_cache.kv_cache_memory_bytes' : 'kv_cache.memory_gib';
    const room = usable - e.weightsBytesPerGpu;
    const pageBytes = pagesKey ? e.pool.budgetBytes / (profile.kvCache.numPages as number) : 0; // the budget is num_pages · a page's bytes
    const fits = pagesKey ? (pageBytes > 0 ? Math.floor(room / pageBytes) : 0) : bytesKey ? Math.max(0, Math.floor(room)) : Math.floor((room / 2 ** 30) * 100) / 100;
    const removable = pagesKey ? typeof profile.kvCache.memoryGib !== 'number' : true;
    const fixes = [...(fits > 0 ? [`set ${key} to at most ${pagesKey ? formatCount(fits) : fits}`] : []), ...(removable ? [`drop it (device.${profile.device.memoryGib !== null ? 'memory_gib' : 'gpu'} then sizes the pool)`] : [])];
    const [sumText, usableText] = formatBytesApart(withBudget, usable);
    return [{
      severity: 'warning',
      code: 'kv-budget-exceeds-device',
      // The sum and the usable memory printed so that "exceed" reads true (core/format formatBytesApart, as weights-exceed-device's):
      // 6.65 GiB of budget beside Llama-3.1-8B's 14.96 GiB on 24 GiB × 0.90 is 21.61 GiB, at three digits "21.6 exceed 21.6" (s51).
      message: `KV budget ${formatBytes(e.pool.budgetBytes)} + ${weights} = ${sumText} exceed ${device} × ${formatFactorAsWritten(d.gpuMemoryUtilization)} = ${usableText}${fixes.length > 0 ? `: ${fixes.join(', or ')}` : ''}`,
      range: profileKey(profile, key),
      data: { key, ...(fits > 0 ? { fits } : {}), removable },
    }];
  }
  return [];
}

/** Head size, page size and dtypes against the backend's kernels. */
function kernelProblems(profile: Profile, e: Estimate): Problem[] {
  const problems: Problem[] = [];
  const backend = profile.device.backend;
  const m = profile.model;
  const D = m.headDim;
  const headKey = modelKey(profile, m.sourceKeys.headDim ?? m.sourceKeys.numHeads);
  const cudaDims = KERNEL_LIMITS.cuda.headDims;
  if (D > KERNEL_LIMITS.cpu.maxHeadDim) {
    problems.push({ severity: 'error', code: 'head-dim-unsupported', message: `head_dim ${D} is larger than any kernel takes: the CPU kernels support head_dim up to ${KERNEL_LIMITS.cpu.maxHeadDim}, the CUDA kernels ${cudaDims.join(' and ')}`, ...headKey, data: { headDim: D, supported: cudaDims } });
  } else if (!(cudaDims as readonly number[]).includes(D) && backend !== 'cpu') {
    problems.push({
      severity: backend === 'cuda' ? 'error' : 'info',
      code: 'head-dim-unsupported',
      message: `head_dim ${D} has no CUDA kernel (the CUDA kernels support head_dim ${cudaDims.join(' and ')}; the CPU kernels any head_dim up to ${KERNEL_LIMITS.cpu.maxHeadDim})${backend === 'cuda' ? ': set device.backend to cpu to benchmark it' : ': it is benchmarked on the CPU'}`,
      ...headKey,
      data: { headDim: D, supported: cudaDims },
    });
  }
  const ps = profile.kvCache.pageSize;
  const { minPageSize, maxPageSize } = KERNEL_LIMITS.cuda;
  if (backend === 'cuda' && (ps < minPageSize || ps > maxPageSize)) {
    const suggestion = nearestPageSize(ps, profile.device.gpu, backend);
    problems.push({ severity: 'error', code: 'page-size-unsupported', message: `page_size ${ps} is not supported by the CUDA decode kernel, which takes ${minPageSize} to ${maxPageSize} tokens per page: try ${suggestion}`, range: profileKey(profile, 'kv_cache.page_size', 'kv_cache'), data: { suggestion, min: minPageSize, max: maxPageSize } });
  }
  const vllm = vllmPageSizeProblem(profile);
  if (vllm && !problems.some((p) => p.code === 'page-size-unsupported')) problems.push(vllm);
  // An MLA model on Hopper (s41 newcomer-ed F12: DeepSeek-V3 on H100 sized 16-token pages).
  const flashMla = flashMlaPageSizeNote(ps, Boolean(m.mla), deviceGpu(profile.device));
  if (flashMla && !problems.some((p) => p.code.startsWith('page-size-'))) {
    problems.push({ severity: 'warning', code: 'page-size-flashmla', message: `${flashMla.text}; the figures are for page_size ${ps} as written: try ${flashMla.suggestion}`, range: profileKey(profile, 'kv_cache.page_size', 'kv_cache'), data: { suggestion: flashMla.suggestion } });
  }
  const prefillNote = m.mla ? mlaPrefillHeadDim(m.mla).note : null;
  if (prefillNote && profile.prefill.seqLens.length > 0) {
    problems.push({ severity: 'info', code: 'mla-prefill-head-dim', message: prefillNote, ...modelKey(profile, 'v_head_dim'), data: { headDim: mlaPrefillHeadDim(m.mla!).headDim } });
  }
  if (m.mla && !m.isEncoder && profile.decode.batchSizes.length > 0) {
    problems.push({ severity: 'info', code: 'mla-decode-head-dim', message: mlaDecodeHeadDim(m.mla).note, ...modelKey(profile, 'kv_lora_rank'), data: { headDim: mlaDecodeHeadDim(m.mla).headDim } });
  }
  if (m.attnLogitSoftcapping && (profile.prefill.seqLens.length > 0 || profile.decode.batchSizes.length > 0)) {
    problems.push({ severity: 'info', code: 'attn-logit-softcapping', message: softcapNote(m.attnLogitSoftcapping), ...modelKey(profile, m.sourceKeys.attnLogitSoftcapping), data: { cap: m.attnLogitSoftcapping } });
  }
  const kvAt = profileKey(profile, 'kv_cache.dtype', 'kv_cache');
  if (isFp8KvDtype(e.kvDtype) && e.hasKvCache) {
    const where = backend === 'cpu' ? 'the CPU kernels have' : backend === 'cuda' ? 'the CUDA kernels have' : 'neither the CPU nor the CUDA kernels have';
    problems.push({ severity: 'warning', code: 'kv-dtype-estimate-only', message: `kv_cache.dtype fp8 (${e.kvDtype === 'fp8_e5m2' ? 'e5m2' : 'e4m3'}): ${where} an fp8 KV cache, so this is an estimate only (1 byte per element); the benchmark runs the KV cache in ${profile.dtype}`, range: kvAt, data: { suggestion: 'auto' } });
  }
  // vLLM's --kv-cache-dtype takes auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla (some
  // releases float16 too; vllm/config/cache.py CacheDType): no float32. 'auto' follows the model's
  // dtype, fp32 included, so only fp32 written at the key is a pool vLLM cannot run (s41 newcomer-ed F10).
  if (profile.kvCache.dtype === 'fp32' && onGpu(profile.device.gpu, backend) && e.hasKvCache) {
    problems.push({ severity: 'warning', code: 'kv-dtype-not-vllm', message: `kv_cache.dtype fp32 is not a KV cache dtype vLLM runs on ${profile.device.gpu ?? 'a CUDA GPU'}: its --kv-cache-dtype takes auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2 (vllm/config/cache.py CacheDType), no float32; the figures are for 4-byte KV elements as written (auto: the profile's dtype, ${profile.dtype})`, range: kvAt, data: { suggestion: 'auto' } });
  }
  if (backend === 'cuda' && !(KERNEL_LIMITS.cuda.dtypes as readonly string[]).includes(profile.dtype)) {
    problems.push({ severity: 'warning', code: 'dtype-unsupported', message: `dtype ${profile.dtype}: the CUDA kernels run ${KERNEL_LIMITS.cuda.dtypes.join(' and ')}`, range: profileKey(profile, 'dtype', 'model'), data: { suggestion: 'bf16' } });
  }
  return problems;
}

/** The device values at which a pool the device sizes fits ({@link deviceSizesThatFit}): in words for the message, and as the quick fixes' data. */
interface DeviceSizes {
  text: string[];
  data: { gpuMemoryUtilization?: number; memoryGib?: number; tensorParallelSize?: number };
}

/**
 * The device settings at which a pool the device sizes (kv_cache budget 'device') holds what
 * `holds` asks of an estimate, `short` bytes a GPU of `deviceBytes` being missing now: gpu_memory_utilization
 * raised by short / device memory (to two decimals, up to 1), memory_gib by short / utilization (a
 * whole GiB, when written), each checked by estimating the profile with it; and the smallest
 * tensor_parallel_size vLLM takes at which it holds (checks.ts parallelFit, tensor parallelism
 * alone: an estimate each, the weights and, but for MLA's latent, the KV heads split). For
 * kv-pool-empty (a page) and pool-below-max-model-len (one max_model_len sequence).
 */
function deviceSizesThatFit(profile: Profile, deviceBytes: number, short: number, holds: (e: Estimate) => boolean, reestimate: Reestimate): DeviceSizes {
  const d = profile.device;
  const at = (device: Partial<Profile['device']>): boolean => holds(reestimate({ ...profile, device: { ...d, ...device } }));
  const sizes: DeviceSizes = { text: [], data: {} };
  const util = deviceBytes > 0 ? Math.ceil((d.gpuMemoryUtilization + short / deviceBytes) * 100) / 100 : Infinity;
  if (util <= 1 && at({ gpuMemoryUtilization: util })) {
    sizes.text.push(`raise device.gpu_memory_utilization to ${util.toFixed(2)}`);
    sizes.data.gpuMemoryUtilization = util;
  }
  if (d.memoryGib !== null) {
    const gib = Math.ceil(d.memoryGib + short / d.gpuMemoryUtilization / 2 ** 30);
    if (at({ memoryGib: gib })) {
      sizes.text.push(`raise device.memory_gib to ${gib}`);
      sizes.data.memoryGib = gib;
    }
  }
  const tp = parallelFit(profile.model, d.tensorParallelSize, d.pipelineParallelSize ?? 1, (t) => at({ tensorParallelSize: t }), { pipeline: false }).tensorParallelSize;
  if (tp !== undefined) {
    sizes.text.push(`raise device.tensor_parallel_size to ${tp}`);
    sizes.data.tensorParallelSize = tp;
  }
  return sizes;
}

/**
 * A pool that cannot hold one sequence of max_model_len: vLLM refuses to start ("To serve at
 * least one request with the models's max seq len (N), (X GiB KV cache is needed, which is
 * larger than the available KV cache memory (Y GiB). Based on the available memory, the
 * estimated maximum model length is M. Try increasing `gpu_memory_utilization` or decreasing
 * `max_model_len`": vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory, which needs
 * ceil(N / block_size) blocks; with the hybrid KV-cache manager, Σ of every layer spec's
 * max_memory_usage_bytes, blocksPerRequest). N is workload.max_model_len as written, else vLLM's
 * default for the model (maxModelLenOf; the estimate's concurrencySeqLen). The message says how much
 * one sequence needs and which key to change: the explicit budget (num_pages, memory_gib), the
 * device (gpu_memory_utilization, memory_gib or tensor_parallel_size, with the value that fits:
 * deviceSizesThatFit), or
 * workload.max_model_len set to at most vLLM's "estimated maximum model length" M
 * (data.maxModelLenThatFits: the editor's quick fix writes it, server/actions.ts).
 */
function concurrencyProblems(profile: Profile, e: Estimate, reestimate: Reestimate): Problem[] {
  const w = profile.workload;
  const p = e.pool;
  if (!e.hasKvCache || p.budgetSource === 'none' || (p.budgetSource === 'device' && p.pages === 0)) return [];
  const n = w?.maxModelLen ?? p.concurrencySeqLen;
  const ps = p.layout.pageSize;
  // vLLM refuses when one request's reservation exceeds the budget; for a uniform pool that is
  // p.tokens < n exactly (floor(budget / pageBytes) < ceil(n / page_size)).
  const neededFor = (len: number): number => blocksPerRequest(p.layout, len) * e.pageBytes;
  if (neededFor(n) <= p.budgetBytes) return [];
  const pagesNeeded = blocksPerRequest(p.layout, n);
  const needed = neededFor(n);
  const missing = needed - p.budgetBytes;
  const d = profile.device;
  const fixes: string[] = [];
  let sizes: DeviceSizes | null = null;
  let at: SourceRange;
  if (typeof profile.kvCache.numPages === 'number') {
    fixes.push(`set kv_cache.num_pages to at least ${formatCount(pagesNeeded)}`);
    at = profileKey(profile, 'kv_cache.num_pages');
  } else if (p.budgetSource === 'explicit') {
    fixes.push(profile.ranges['kv_cache.kv_cache_memory_bytes'] ? `set kv_cache.kv_cache_memory_bytes to at least ${needed}` : `set kv_cache.memory_gib to at least ${Math.ceil((needed / 2 ** 30) * 100) / 100}`);
    at = profileKey(profile, 'kv_cache.memory_gib', 'kv_cache.kv_cache_memory_bytes');
  } else {
    sizes = deviceSizesThatFit(profile, p.deviceMemoryBytes, missing, (x) => blocksPerRequest(x.pool.layout, n) * x.pageBytes <= x.pool.budgetBytes, reestimate);
    fixes.push(...sizes.text);
    if (d.memoryGib === null) fixes.push('pick a larger device.gpu');
    at = profileKey(profile, 'device.memory_gib', 'device.gpu', 'device.gpu_memory_utilization', 'device');
  }
  // The longest max_model_len whose reservation fits (vLLM's estimate_max_model_len, a binary search).
  let fitLen = 0;
  for (let lo = 1, hi = n - 1; lo <= hi;) {
    const mid = Math.floor((lo + hi) / 2);
    if (neededFor(mid) <= p.budgetBytes) {
      fitLen = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (p.layout.kind === 'uniform') fitLen = Math.floor(fitLen / ps) * ps;
  const written = w !== null && profile.ranges['workload.max_model_len'] !== undefined;
  const nFrom = written ? 'workload.max_model_len' : maxModelLenOf(profile).source;
  // vLLM's "Based on the available memory, the estimated maximum model length is M".
  // First where the length is vLLM's default: the user never chose it, and it is what `vllm serve` would refuse.
  if (fitLen > 0) {
    const fix = `${written ? 'lower' : 'set'} workload.max_model_len to at most ${formatCount(fitLen)}, the longest that fits (vLLM's "estimated maximum model length")`;
    if (written) fixes.push(fix);
    else fixes.unshift(fix);
  }
  if (written) at = profileKey(profile, 'workload.max_model_len');
  // Sizes as the estimate's table gives them (formatBytes, three significant digits: "16 GiB", "55.4 GiB"), not vLLM's
  // two decimals ("16.00 GiB"): this sentence is ours, not vLLM's error quoted (s47 newcomer).
  const budget = p.budgetSource === 'device' ? `the ${formatBytes(p.budgetBytes)} the device leaves for the KV cache` : `the KV budget of ${formatBytes(p.budgetBytes)}`;
  return [{
    severity: 'warning',
    code: 'pool-below-max-model-len',
    message: p.layout.kind !== 'uniform'
      ? `one max_model_len sequence (${formatCountOf(n, 'token')}: ${nFrom}) needs ${formatBytes(needed)} of KV cache (${formatCountOf(pagesNeeded, 'block')} of ${ps} tokens: ${p.layout.basis}), ${formatBytes(missing)} more than ${budget}, so vLLM would refuse to start: ${fixes.join(', or ')}`
      : `the KV pool holds ${formatCountOf(p.tokens, 'token')} (${formatCountOf(p.pages, 'page')} of ${ps}), fewer than one max_model_len sequence (${formatCountOf(n, 'token')}: ${nFrom}), so vLLM would refuse to start. One sequence needs ${formatBytes(needed)} of KV cache (${formatCountOf(pagesNeeded, 'page')}), ${formatBytes(missing)} more than ${budget}: ${fixes.join(', or ')}`,
    range: at,
    data: { neededBytes: needed, missingBytes: missing, pagesNeeded, maxModelLenThatFits: fitLen, ...sizes?.data },
  }];
}

/** How far above a card's CUDA total in the table a device.memory_gib may be before it warns: the drivers' spread of the totals logged for one card (0.43 % on the A100 40GB's 39.39-39.56 GiB, 0.30 % on the RTX 4090's 23.61-23.68). */
const DRIVER_SPREAD = 0.005;

/**
 * device.memory_gib beyond the memory the GPU device.gpu names has (`{ gpu: A10, memory_gib: 80 }`):
 * memory_gib sizes the pool, so every figure would be of a card that does not exist; the step
 * times come from the named GPU's peaks all the same.
 *
 * The limit is what CUDA reports as the card's total (the table's cudaMemoryGib, vLLM's
 * `total_gpu_memory`), the largest figure memory_gib copied from a vLLM log can hold, plus
 * DRIVER_SPREAD: the same card's total moves between drivers (gpus.ts: A100 40GB 39.39 to
 * 39.56 GiB, L40S 44.31 to 44.39, RTX 4090 23.61 to 23.68), and a user's own log is not wrong.
 */
function deviceProblems(profile: Profile): Problem[] {
  const d = profile.device;
  const gpu = deviceGpu(d);
  if (!gpu || d.memoryGib === null) return [];
  const limitGib = gpu.cudaMemoryGib;
  if (d.memoryGib <= limitGib * (1 + DRIVER_SPREAD)) return [];
  const has = gpu.userGiven
    ? `its user-given memory_gib ${limitGib}, ±${DRIVER_SPREAD * 100} % between drivers`
    : `CUDA reports ${limitGib} GiB of its ${formatCount(gpu.memoryBytes / 1e9)} GB, vLLM's total_gpu_memory, ±${DRIVER_SPREAD * 100} % between drivers`;
  return [{
    severity: 'warning',
    code: 'memory-exceeds-gpu',
    message: `device.memory_gib ${d.memoryGib} is more than the ${gpu.name} has (${has}): the pool is sized for memory the card lacks; set memory_gib to at most ${limitGib}, drop it (device.gpu then sizes the pool), or name the GPU you mean`,
    range: profileKey(profile, 'device.memory_gib', 'device'),
    data: { memoryGib: d.memoryGib, gpu: gpu.name, limitGib },
  }];
}

/**
 * The ranges real cards' figures span, in a described GPU's units (gpus.ts UserGpuFields), and the
 * unit slip a figure 10x or more outside one most likely is. Cards from an L4 to a B200: dense
 * bf16 121 (L4) to 2,250 TFLOP/s (B200), memory 300 (L4) to 8,000 GB/s (B200), 22 to 192 GiB,
 * a link 32 (PCIe Gen4 x16) to 900 GB/s a direction (B200), all gpus.ts rows' datasheet figures.
 * A figure flagged is 10x beyond those ends: below a tenth of the smallest or above ten times the
 * largest (the ends themselves rounded outwards: 10 to 50,000 TFLOP/s, 10 to 100,000 GB/s, up
 * to 1,024 GiB, 1 to 10,000 GB/s).
 */
const GPU_FIGURE_RANGES: ReadonlyArray<{ key: 'bf16_tflops' | 'fp32_tflops' | 'fp8_tflops' | 'int8_tops' | 'memory_bandwidth_gb_s' | 'memory_gib' | 'interconnect_gb_s'; min: number; max: number; low: string; high: string }> = [
  { key: 'bf16_tflops', min: 10, max: 50_000, low: 'PFLOP/s typed in a TFLOP/s key? (2.25 PFLOP/s is 2,250)', high: 'GFLOP/s typed in a TFLOP/s key? (989,000 GFLOP/s is 989)' },
  { key: 'fp32_tflops', min: 1, max: 50_000, low: 'PFLOP/s typed in a TFLOP/s key?', high: 'GFLOP/s typed in a TFLOP/s key?' },
  { key: 'fp8_tflops', min: 10, max: 100_000, low: 'PFLOP/s typed in a TFLOP/s key?', high: 'GFLOP/s typed in a TFLOP/s key?' },
  { key: 'int8_tops', min: 10, max: 100_000, low: 'POP/s typed in a TOP/s key?', high: 'GOP/s typed in a TOP/s key?' },
  { key: 'memory_bandwidth_gb_s', min: 30, max: 100_000, low: 'TB/s typed in a GB/s key? (3.35 TB/s is 3,350)', high: 'MB/s typed in a GB/s key?' },
  { key: 'memory_gib', min: 2, max: 1_024, low: 'TiB typed in a GiB key?', high: 'MiB typed in a GiB key? (nvidia-smi prints MiB: 81,559 MiB is 79.65 GiB)' },
  { key: 'interconnect_gb_s', min: 1, max: 10_000, low: 'TB/s or Tb/s typed in a GB/s key? (NVLink 900 GB/s both directions is 450 here)', high: 'MB/s typed in a GB/s key?' },
];

/**
 * A GPU the profile describes (device.gpu as a mapping, gpus.ts userGpu), warned where its figures
 * would mislead without an error (each a warning at its key):
 * - gpu-figure-implausible: a figure 10x outside every real card's range ({@link GPU_FIGURE_RANGES}),
 *   with the unit slip it most likely is ("memory_bandwidth_gb_s 3.35: TB/s typed in a GB/s key?"):
 *   3.35 GB/s makes a 7 s TPOT, not an error.
 * - interconnect-assumed: tensor_parallel_size > 1 without `interconnect`: the all-reduces are
 *   modelled over PCIe (Gen4 x16 32 GB/s a direction unless interconnect_gb_s or pcie_gen say
 *   otherwise) with vLLM's custom all-reduce off past 2 GPUs, which no NVLink or Infinity Fabric
 *   card has; an interconnect_gb_s without it is taken as PCIe's.
 * - interconnect-rate-assumed: tensor_parallel_size > 1 with interconnect NVLink or Infinity Fabric
 *   but no interconnect_gb_s: the link is modelled at PCIe x16's rate of pcie_gen (s44 newcomer
 *   M1: "NVLink 32 GB/s", 7-14x below every NVLink, said only inside the Step time line).
 * - ring-efficiency-replaced: ring_all_reduce_efficiency beside the profile's
 *   step_time.all_reduce.efficiency.two_shot, which is NCCL's ring's at every size and wins: the
 *   GPU's figure is not used.
 * - fp32-at-bf16-peak: dtype fp32 without fp32_tflops: fp32 GEMMs timed at the bf16 tensor peak
 *   (s42 newcomer 11: 15-60x optimistic, unwarned).
 * - gpu-name-shadows-table: the mapping's name is a table row's ("H100 SXM"): the figures are the
 *   user's, shown as "H100 SXM (user-given)", where only the name shows (a sweep's axis, Compare)
 *   the two read alike.
 * - gpu-fp8-below-bf16: fp8_tflops below bf16_tflops: every card of the table with fp8 tensor cores
 *   runs them at twice its bf16 rate (H100 SXM 1,979 vs 989, L4 242.5 vs 121, MI300X 2,614.9 vs
 *   1,307.4 TFLOP/s dense, the datasheets gpus.ts copies), so fp8 GEMMs timed slower than bf16 are
 *   a slip (a bf16 figure in the fp8 key, or the two swapped). s43 newcomer43 L4.
 * - gpu-platform-link-mismatch: platform cuda with interconnect Infinity Fabric, AMD's link, which
 *   only AMD Instinct cards have and vLLM runs through ROCm: the run would put CUDA's rules (page
 *   sizes, Marlin's weight-only fp8) on an AMD card's link. s43 review.
 */
function describedGpuProblems(profile: Profile): Problem[] {
  const gpu = profile.device.gpuSpec;
  const f = gpu?.given;
  if (!gpu || !f) return [];
  const problems: Problem[] = [];
  const at = (key: string) => profileKey(profile, `device.gpu.${key}`, 'device.gpu', 'device');
  for (const r of GPU_FIGURE_RANGES) {
    const v = f[r.key];
    if (v === undefined || (v >= r.min && v <= r.max)) continue;
    const low = v < r.min;
    problems.push({
      severity: 'warning',
      code: 'gpu-figure-implausible',
      message: `device.gpu.${r.key} ${v}: ${low ? r.low : r.high}; no card's is ${low ? `below ${formatCount(r.min)}` : `above ${formatCount(r.max)}`} (the GPUs device.gpu names), so the figures modelled from it are far off`,
      range: at(r.key),
      data: { key: `device.gpu.${r.key}`, value: v, min: r.min, max: r.max },
    });
  }
  const tp = profile.device.tensorParallelSize;
  if (tp > 1 && f.interconnect === undefined) {
    const rate = f.interconnect_gb_s ?? pcieX16BytesPerSec(gpu.pcieGen) / 1e9;
    problems.push({
      severity: 'warning',
      code: 'interconnect-assumed',
      message: `device.gpu ${f.name} gives no interconnect: at tensor_parallel_size ${tp} its all-reduces are modelled over PCIe, ${formatCount(rate)} GB/s a direction (${f.interconnect_gb_s !== undefined ? 'interconnect_gb_s taken as a PCIe link\'s' : `PCIe Gen${gpu.pcieGen} x16 assumed`}), by NCCL's ring${tp > 2 ? ' (vLLM\'s custom all-reduce is off past 2 PCIe GPUs)' : ''}; give interconnect (NVLink, PCIe, "PCIe, no P2P" or Infinity Fabric) and interconnect_gb_s from its datasheet`,
      range: at(f.interconnect_gb_s !== undefined ? 'interconnect_gb_s' : 'name'),
      data: { gpu: f.name, assumed: 'PCIe', interconnectGbS: rate },
    });
  }
  if (tp > 1 && f.interconnect !== undefined && !f.interconnect.startsWith('PCIe') && f.interconnect_gb_s === undefined) {
    const rate = pcieX16BytesPerSec(gpu.pcieGen) / 1e9;
    problems.push({
      severity: 'warning',
      code: 'interconnect-rate-assumed',
      message: `device.gpu ${f.name} gives interconnect ${f.interconnect} but no interconnect_gb_s: at tensor_parallel_size ${tp} its all-reduces are modelled at PCIe Gen${gpu.pcieGen} x16's ${formatCount(rate)} GB/s a direction, far below any ${f.interconnect} (${f.interconnect === 'NVLink' ? 'H100 SXM 450, A100 SXM 300 GB/s a direction' : 'MI300X 448 GB/s a direction over its 7 links'}, the table's datasheets); give interconnect_gb_s, one direction, from its datasheet`,
      range: at('interconnect'),
      data: { gpu: f.name, interconnect: f.interconnect, interconnectGbS: rate },
    });
  }
  const twoShot = profile.stepTime?.allReduce?.efficiency?.twoShot;
  if (f.ring_all_reduce_efficiency !== undefined && twoShot !== undefined) {
    problems.push({
      severity: 'warning',
      code: 'ring-efficiency-replaced',
      message: `device.gpu.ring_all_reduce_efficiency ${f.ring_all_reduce_efficiency} is not used: step_time.all_reduce.efficiency.two_shot ${twoShot} is NCCL's ring's at every size and replaces it in the step time; keep the one you measured`,
      range: at('ring_all_reduce_efficiency'),
      data: { gpu: f.name, ringAllReduceEfficiency: f.ring_all_reduce_efficiency, twoShot },
    });
  }
  if (profile.dtype === 'fp32' && f.fp32_tflops === undefined) {
    problems.push({
      severity: 'warning',
      code: 'fp32-at-bf16-peak',
      message: `dtype fp32 on device.gpu ${f.name}, which gives no fp32_tflops: its fp32 GEMMs are timed at bf16_tflops ${f.bf16_tflops}, a tensor-core peak far above a card's non-tensor fp32 (H100 SXM: 67 vs 989 TFLOP/s dense, NVIDIA datasheet), so the step time comes out that much short; give fp32_tflops from its datasheet`,
      range: profileKey(profile, 'dtype', 'device.gpu', 'device'),
      data: { gpu: f.name },
    });
  }
  if (f.fp8_tflops !== undefined && f.fp8_tflops < f.bf16_tflops) {
    problems.push({
      severity: 'warning',
      code: 'gpu-fp8-below-bf16',
      message: `device.gpu.fp8_tflops ${f.fp8_tflops} is below bf16_tflops ${f.bf16_tflops}: fp8 tensor cores run at twice the bf16 rate on every card of the table that has them (H100 SXM 1,979 vs 989, L4 242.5 vs 121, MI300X 2,614.9 vs 1,307.4 TFLOP/s dense, datasheets), so fp8 GEMMs would be timed slower than bf16 ones; give the dense fp8 figure of its datasheet (half the "with sparsity" one)`,
      range: at('fp8_tflops'),
      data: { gpu: f.name, fp8Tflops: f.fp8_tflops, bf16Tflops: f.bf16_tflops },
    });
  }
  if (f.platform === 'cuda' && f.interconnect === 'Infinity Fabric') {
    problems.push({
      severity: 'warning',
      code: 'gpu-platform-link-mismatch',
      message: `device.gpu ${f.name} has platform cuda and interconnect Infinity Fabric: Infinity Fabric is AMD's link, on AMD Instinct cards, which vLLM runs through ROCm, so the run would model AMD's link under CUDA's rules (CUDA attention backends' page sizes, Marlin for weight-only fp8); write platform: rocm for an AMD card, or the NVIDIA card's own interconnect (NVLink or PCIe)`,
      range: at('platform'),
      data: { gpu: f.name },
    });
  }
  if (gpuByName(f.name)) {
    problems.push({
      severity: 'warning',
      code: 'gpu-name-shadows-table',
      message: `device.gpu.name "${f.name}" is a row of the GPU table, but these figures are the mapping's, not the table's: the run reads "${f.name} (user-given)", and where only the name shows (a sweep's axis, Compare) it reads as the table's card; name it otherwise, or write device.gpu: ${f.name} for the table's figures`,
      range: at('name'),
      data: { gpu: f.name },
    });
  }
  return problems;
}

/** The keys the pool's size depends on: the device, the dtypes, the page, the engine's reserves and batch limits. */
const POOL_KEYS = ['device', 'dtype', 'kv_cache', 'engine', 'workload'];

/**
 * The profile keys (dotted paths; a section covers its keys) each checkProfile problem reads,
 * by code, besides the model. A profile read without its invalid keys (the editor's
 * readWithoutInvalidKeys: defaults stand in for them) keeps a problem only when none of its keys
 * is invalid, so an error at one key does not hide a warning that does not depend on it (fp8
 * KV beside a max_model_len too long), and no problem speaks of a default the user did not write.
 */
export const CHECK_KEYS: Readonly<Record<string, readonly string[]>> = {
  'memory-exceeds-gpu': ['device.memory_gib', 'device.gpu'],
  'gpu-figure-implausible': ['device.gpu'],
  'interconnect-assumed': ['device.gpu', 'device.tensor_parallel_size'],
  'interconnect-rate-assumed': ['device.gpu', 'device.tensor_parallel_size'],
  'fp32-at-bf16-peak': ['dtype', 'device.gpu'],
  'gpu-name-shadows-table': ['device.gpu'],
  'gpu-fp8-below-bf16': ['device.gpu'],
  'gpu-platform-link-mismatch': ['device.gpu'],
  'weights-exceed-device': POOL_KEYS,
  'kv-pool-empty': POOL_KEYS,
  'kv-budget-exceeds-device': POOL_KEYS,
  'head-dim-unsupported': ['device.backend'],
  'page-size-unsupported': ['device.backend', 'kv_cache.page_size'],
  'page-size-not-vllm': ['device.gpu', 'device.backend', 'kv_cache.page_size'],
  'page-size-flashmla': ['device.gpu', 'kv_cache.page_size'],
  'mla-prefill-head-dim': ['prefill.seq_lens'],
  'mla-decode-head-dim': ['decode.batch_sizes'],
  'attn-logit-softcapping': ['prefill.seq_lens', 'decode.batch_sizes'],
  'kv-dtype-estimate-only': ['kv_cache.dtype', 'dtype', 'device.backend'],
  'kv-dtype-not-vllm': ['kv_cache.dtype', 'device.gpu', 'device.backend'],
  'dtype-unsupported': ['device.backend', 'dtype'],
  'pool-below-max-model-len': POOL_KEYS,
  'vllm-predates-model': ['engine.vllm_version'],
  'hybrid-manager-required': ['engine.disable_hybrid_kv_cache_manager', 'engine.vllm_version'],
  'mamba-all-unaligned': ['engine.mamba_cache_mode'],
};

/**
 * The problems of checkProfile on a profile read without the keys at `invalid` (dotted paths)
 * that depend on none of them (CHECK_KEYS; a code not listed there is left out).
 */
export function checksIndependentOf(profile: Profile, e: Estimate, invalid: readonly string[], reestimate: Reestimate): Problem[] {
  return checkProfile(profile, e, reestimate).filter((p) => {
    const keys = CHECK_KEYS[p.code];
    return keys !== undefined && !keys.some((k) => invalid.some((i) => keyPathsOverlap(i, k)));
  });
}

/**
 * The first vLLM release that serves each architecture, by the config's model_type (top level or
 * text_config), each from vLLM's own threads or the users who hit the limit:
 * - Mistral 0.2.0: vLLM issue #1089 and PR #1221 (28 Sep 2023, the supported-model list); the
 *   0.1.7 of that day refused MistralForCausalLM (mistralai/Mistral-7B-Instruct-v0.1 discussion
 *   #11 on Hugging Face: "it will be in the next release").
 * - Mixtral 0.2.4: vLLM PR #2011 (MixtralForCausalLM in the model loader), PR #2015 and the
 *   version bump PR #2034 the same day (11 Dec 2023).
 * - Qwen2 (Qwen1.5 and later) 0.3.0: vLLM issue #3463, "Qwen2 is support in v0.3.0 and higher"
 *   (simon-mo).
 * - Gemma and OLMo 0.3.2: vLLM PR #2968 (the v0.3.2 bump: "Add support for Gemma models (#2964)
 *   and OLMo models (#2832)").
 * - StarCoder2 0.3.3: vLLM PR #3089; issue #3165, "supported as of the latest release v0.3.3".
 * - Phi-3 0.4.2: vLLM PR #4298; issue #4375, "The release version 0.4.1 does not yet support Phi3".
 * - Gemma 2 0.5.1: vLLM PR #5908 (merged 27 Jun 2024); issue #6026 (0.5.0.post1 refuses
 *   Gemma2ForCausalLM), issue #6169 (Gemma 2 "with new 0.5.1 version").
 * - DeepSeek-V2 0.5.1: vLLM PR #4650 (merged 28 Jun 2024, after 0.5.0.post1, before 0.5.1 of
 *   5 Jul); issue #6986 (0.5.0.post1 refuses DeepseekV2ForCausalLM).
 * - DeepSeek-V3 0.6.6: vLLM issue #11559, "It is supported since v0.6.6" (DarkLight1337).
 * - Gemma 3 0.8.0: vLLM PR #14971 (Gemma 3 "given the 0.8.0 release"); ms-swift issue #3660,
 *   "vllm 0.7.3 not support gemma3".
 * - Llama 4 0.8.3: vLLM PR #16104 "[Model] Support Llama4 in vLLM" (5 Apr 2025), closing issue
 *   #16106 ("Release will be out soon"): released as 0.8.3.
 * - Qwen3 and Qwen3-MoE 0.8.4: vLLM PR #15289 "[Model] Add Qwen3 and Qwen3MoE"; vLLM issue #17578,
 *   "Qwen3 models are only supported in vLLM >= 0.8.4".
 * - GLM-4-0414 (model_type glm4) 0.8.4: vLLM PR #16338, in v0.8.4's release notes.
 * - gpt-oss 0.10.1: vLLM PR #22259 "Support gpt-oss" (wheel vllm==0.10.1+gptoss); 0.10.1 the first
 *   release with it (snowflakedb/ArcticInference issue #168: "the lowest vLLM version that
 *   supports GPT OSS is 0.10.1").
 * - Qwen3-Next 0.10.2: vLLM issue #24944 (Qwen3-Next on v0.10.2rc3); vllm-project/vllm-ascend
 *   PR #2919 (Qwen3-Next support against vLLM v0.10.2).
 * - Qwen3.5 0.17.0: vllm-project/recipes Qwen/Qwen3.5.md ("Use vLLM nightly wheel until 0.17.0 is
 *   released", for Qwen3_5MoeForConditionalGeneration).
 */
export const FIRST_VLLM_RELEASE: readonly { modelTypes: readonly string[]; name: string; since: readonly [number, number, number]; source: string }[] = [
  { modelTypes: ['mistral'], name: 'Mistral', since: [0, 2, 0], source: 'vLLM issue #1089, PR #1221' },
  { modelTypes: ['mixtral'], name: 'Mixtral', since: [0, 2, 4], source: 'vLLM PR #2011' },
  { modelTypes: ['qwen2'], name: 'Qwen2', since: [0, 3, 0], source: 'vLLM issue #3463' },
  { modelTypes: ['gemma'], name: 'Gemma', since: [0, 3, 2], source: 'vLLM PR #2964' },
  { modelTypes: ['olmo'], name: 'OLMo', since: [0, 3, 2], source: 'vLLM PR #2832' },
  { modelTypes: ['starcoder2'], name: 'StarCoder2', since: [0, 3, 3], source: 'vLLM PR #3089, issue #3165' },
  { modelTypes: ['phi3'], name: 'Phi-3', since: [0, 4, 2], source: 'vLLM PR #4298, issue #4375' },
  { modelTypes: ['gemma2'], name: 'Gemma 2', since: [0, 5, 1], source: 'vLLM PR #5908' },
  { modelTypes: ['deepseek_v2'], name: 'DeepSeek-V2', since: [0, 5, 1], source: 'vLLM PR #4650' },
  { modelTypes: ['deepseek_v3'], name: 'DeepSeek-V3', since: [0, 6, 6], source: 'vLLM issue #11559' },
  { modelTypes: ['gemma3', 'gemma3_text'], name: 'Gemma 3', since: [0, 8, 0], source: 'vLLM PR #14971' },
  { modelTypes: ['llama4', 'llama4_text'], name: 'Llama 4', since: [0, 8, 3], source: 'vLLM PR #16104' },
  { modelTypes: ['qwen3', 'qwen3_moe'], name: 'Qwen3', since: [0, 8, 4], source: 'vLLM PR #15289, issue #17578' },
  { modelTypes: ['glm4'], name: 'GLM-4-0414', since: [0, 8, 4], source: 'vLLM PR #16338' },
  { modelTypes: ['gpt_oss'], name: 'gpt-oss', since: [0, 10, 1], source: 'vLLM PR #22259' },
  { modelTypes: ['qwen3_next'], name: 'Qwen3-Next', since: [0, 10, 2], source: 'vLLM issue #24944' },
  { modelTypes: ['qwen3_5', 'qwen3_5_text'], name: 'Qwen3.5', since: [0, 17, 0], source: 'vllm-project/recipes Qwen/Qwen3.5.md' },
  { modelTypes: ['qwen3_5_moe', 'qwen3_5_moe_text'], name: 'Qwen3.5 MoE', since: [0, 17, 0], source: 'vllm-project/recipes Qwen/Qwen3.5.md' },
];

/**
 * Architectures vLLM stopped serving, by model_type, with the first release without them:
 * - Llama 3.2 Vision (mllama) 0.11.0: the V1 engine never served it (MllamaForConditionalGeneration
 *   "is not supported by the V1 Engine. Falling back to V0", vllm-project/vllm-ascend issue #1963
 *   on 0.9.2); vLLM PR #24907 "Remove V0 Encoder-Decoder Support" (merged 15 Sep 2025) left
 *   Whisper the only encoder-decoder model, and PR #24961 lists the removed ones as previously
 *   supported; vLLM issue #27198: meta-llama/Llama-3.2-11B-Vision fails to start on 0.11.0.
 */
export const DROPPED_VLLM_RELEASE: readonly { modelTypes: readonly string[]; name: string; since: readonly [number, number, number]; source: string }[] = [
  { modelTypes: ['mllama', 'mllama_text_model'], name: 'Llama 3.2 Vision (mllama, served by the V0 engine only)', since: [0, 11, 0], source: 'vLLM PR #24907, issue #27198' },
];

/**
 * engine.vllm_version older than the first release that serves the model's architecture
 * (FIRST_VLLM_RELEASE), or at or past the first release that no longer does
 * (DROPPED_VLLM_RELEASE; none named: the current release): that vLLM cannot load the model, so
 * the figures of its memory layout describe no deployment that ran. A warning at
 * engine.vllm_version naming the release to set.
 */
function engineProblems(profile: Profile): Problem[] {
  const version = profile.engine?.vllmVersion ?? null;
  const type = profile.model.modelType.toLowerCase();
  const dropped = DROPPED_VLLM_RELEASE.find((r) => r.modelTypes.includes(type));
  const parsed = version === null || parseVllmVersion(version) !== undefined;
  if (dropped && parsed && vllmAtLeast(version, dropped.since)) {
    const since = dropped.since.join('.');
    return [{
      severity: 'warning',
      code: 'vllm-dropped-model',
      message: `${version === null ? 'the current vLLM (no engine.vllm_version)' : `engine.vllm_version ${version}`} no longer serves ${dropped.name}, model_type ${dropped.modelTypes.join(' or ')}: removed from ${since} (${dropped.source}), so it cannot load this model and the figures describe the releases before it; set engine.vllm_version to a release before ${since}`,
      range: profileKey(profile, 'engine.vllm_version', 'engine'),
      data: { droppedIn: since, modelType: type },
    }];
  }
  if (version === null || parseVllmVersion(version) === undefined) return [];
  const first = FIRST_VLLM_RELEASE.find((r) => r.modelTypes.includes(type));
  if (!first || vllmAtLeast(version, first.since)) return [];
  const since = first.since.join('.');
  return [{
    severity: 'warning',
    code: 'vllm-predates-model',
    message: `engine.vllm_version ${version} predates ${first.name} (model_type ${first.modelTypes.join(' or ')}): vLLM serves it from ${since} (${first.source}), so no ${version} could load this model; its memory layout is shown as that release counted it, for comparison only; set engine.vllm_version to ${since} or later`,
    range: profileKey(profile, 'engine.vllm_version', 'engine'),
    data: { firstRelease: since, modelType: type },
  }];
}

/**
 * engine.disable_hybrid_kv_cache_manager true on a hybrid Mamba (or Gated DeltaNet) / attention
 * model whose state vLLM keeps in the KV pool (the estimate's 'mamba' layout: vLLM >= 0.10.0, at
 * least one attention layer): vLLM refuses to start. Its attention layers' FullAttentionSpec and
 * the mixers' MambaSpec cannot be made one spec, and kv_cache_utils.unify_hybrid_kv_cache_specs
 * (called by get_kv_cache_config when scheduler_config.disable_hybrid_kv_cache_manager is set)
 * raises ValueError("Hybrid KV cache manager is disabled but failed to convert the KV cache specs
 * to one unified type."): the code of vllm-project/vllm at bbf906a (it converts only
 * SlidingWindowSpec to FullAttentionSpec), and the traceback of vLLM issue #42911 (0.19.1,
 * Qwen3.6-27B). An error at the key. A model with no attention layer left (every layer a mixer)
 * has one spec and starts.
 */
function hybridManagerProblems(profile: Profile, e: Estimate): Problem[] {
  const l = e.pool.layout;
  if (profile.engine?.disableHybridKvCacheManager !== true || l.kind !== 'mamba' || !profile.model.mamba) return [];
  const names = mixerNames(profile.model.mamba);
  return [{
    severity: 'error',
    code: 'hybrid-manager-required',
    message: `engine.disable_hybrid_kv_cache_manager true: vLLM refuses to start this hybrid (${l.fullGroups} attention and ${l.mambaGroups} ${names.layer} KV-cache ${l.fullGroups + l.mambaGroups === 1 ? 'group' : 'groups'}) with the hybrid KV-cache manager off, as its attention and ${names.layer} layers cannot share one KV-cache spec (kv_cache_utils.unify_hybrid_kv_cache_specs raises "Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type.", vLLM issue #42911 on 0.19.1; the state is in the KV pool from 0.10.0); remove the key or set it to false`,
    range: profileKey(profile, 'engine.disable_hybrid_kv_cache_manager', 'engine'),
  }];
}

/**
 * engine.mamba_cache_mode "all" on a hybrid whose config gives no Mamba-2 chunk size
 * (MambaSpec.chunkSize: Mamba-1, Gated DeltaNet): vLLM aligns the "all" block to it
 * (HybridAttentionMambaModelConfig, lcm(chunk, 16)); the block is modelled with the 16-token
 * alignment alone. Gated DeltaNet has no "all" mode in vLLM (PR #26807, open). A warning at the key.
 */
function mambaCacheModeProblems(profile: Profile, e: Estimate): Problem[] {
  const m = profile.model.mamba;
  if (profile.engine?.mambaCacheMode !== 'all' || e.pool.layout.kind !== 'mamba' || !m || m.chunkSize !== undefined) return [];
  const names = mixerNames(m);
  return [{
    severity: 'warning',
    code: 'mamba-all-unaligned',
    message: `engine.mamba_cache_mode "all": vLLM aligns the block to the Mamba-2 chunk size (mamba_chunk_size or chunk_size), which this ${names.layer} config does not give, so the block is aligned to ${formatCount(16)} tokens alone here${m.kind === 'gdn' ? `; vLLM has no "all" mode for ${names.layer} layers (PR #26807 is not merged): use "align"` : ''}`,
    range: profileKey(profile, 'engine.mamba_cache_mode', 'engine'),
  }];
}

/** Every problem of `profile` that its estimate or the kernels' limits reveal, in file order of kind. */
export function checkProfile(profile: Profile, e: Estimate, reestimate: Reestimate): Problem[] {
  return [...deviceProblems(profile), ...describedGpuProblems(profile), ...fitProblems(profile, e, reestimate), ...kernelProblems(profile, e), ...concurrencyProblems(profile, e, reestimate), ...engineProblems(profile), ...hybridManagerProblems(profile, e), ...mambaCacheModeProblems(profile, e)];
}
