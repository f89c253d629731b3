/**
 * The step-time model of the serving simulation: how long one forward pass over a batch takes,
 * modelled (never measured here) as a roofline on a named GPU (core/estimate/gpus.ts):
 *
 *   step = overhead + max(memory, compute)
 *   memory  = (W + W_d · [a decode token] + W_p · [a prefill token] + W_e · (1 − (1 − k/E)^T) + B_kv · K) / (BW · e_mem)
 *                                                  W = weight bytes per GPU (what vLLM replicates
 *                                                  under TP included) but the routed experts' and
 *                                                  the input embedding tables' (a step reads one
 *                                                  row of them per token; a tied one stays, read
 *                                                  whole as lm_head: lookupTableBytes), read once
 *                                                  per step; W_d, W_p = an MLA W8A8
 *                                                  checkpoint's bf16 W_UK_T / W_UV copies, read by
 *                                                  decode tokens only, and its quantized kv_b_proj,
 *                                                  read by prefill tokens only (0 otherwise: then
 *                                                  in W); W_e = all routed experts'
 *                                                  bytes per GPU (MoE; 0 for dense), of which a step
 *                                                  of T tokens reads the expected share its tokens
 *                                                  touch: each token picks k of E experts per layer,
 *                                                  so E · (1 − (1 − k/E)^T) experts are touched,
 *                                                  assuming uniform routing (real routers are
 *                                                  skewed: fewer distinct experts); shared experts
 *                                                  are in W; B_kv = KV bytes per token per GPU
 *                                                  of one layer
 *             + B_kv · (L_f · K + L_s · K_s) + 2 · S · R + B_c · C) / (BW · e_mem)
 *                                                  B_c · C: MLA's prefill context tokens C (below)
 *                                                  up-projected, their K/V written and read again
 *                                                  (mlaContextKvBytes);
 *                                                  L_f full-attention layers read the K KV tokens
 *                                                  of the requests' whole contexts, L_s
 *                                                  sliding-window layers (window W) the K_s
 *                                                  within their window: min(context, W) per
 *                                                  decode token; or L_s chunked local-attention
 *                                                  layers (chunk C) those of the query's own
 *                                                  chunk: (t mod C) + 1 at position t; S =
 *                                                  one sequence's recurrent state per GPU
 *                                                  (Mamba, Mamba-2, Gated DeltaNet, lightning
 *                                                  attention, short conv: core/estimate
 *                                                  mambaStateBytesPerSequence; 0 without them),
 *                                                  read and written once per request scheduled
 *                                                  (R, below), a decode token or a prefill chunk
 *                                                  (recurrentStateNote)
 *   compute = (2 · P · T + 2 · V · h / tp · R + H / tp · (L_f · (f_p · Q_p + f_d · Q_d) + L_s · 4 · D · Q_s)
 *              + 2 · B · C) / (F · e_comp)
 *                                                  P = active parameters per GPU but lm_head's,
 *                                                  T = tokens scheduled; V · h = lm_head
 *                                                  (vocab_size × hidden_size, tied or not), which
 *                                                  vLLM multiplies only at the logits rows: R =
 *                                                  requests scheduled in the step, one row each
 *                                                  (vllm/v1/worker/gpu_model_runner.py:
 *                                                  logits_indices = query_start_loc[1:] − 1, each
 *                                                  request's last scheduled token, a partial
 *                                                  prefill chunk's too, its sample discarded);
 *                                                  Q_p = query-key pairs attended by
 *                                                  prefill chunks' queries (chunks of more than one
 *                                                  token), Q_d by decode queries (one-token
 *                                                  chunks), f_p and f_d their FLOPs per pair and
 *                                                  head (QKᵀ and PV, 2 FLOPs per multiply-add
 *                                                  each: 4 · D both, but MLA's, pairFlopsPerHead);
 *                                                  Q_s those inside the window (simulator.h
 *                                                  SlidingPairs) or the chunk (ChunkedPairs);
 *                                                  MLA: B = kv_b_proj's parameters per GPU, all
 *                                                  layers, C = the context tokens (computed before
 *                                                  the chunk) of the step's prefill chunks, each
 *                                                  up-projected from the latent cache again
 *                                                  (mlaContextFlops)
 *
 * With device.cpu_offload_gb the memory side adds W_cpu / BW_host, not divided by e_mem: W_cpu =
 * the weights per GPU vLLM keeps in CPU memory (core/estimate cpuOffload), which every forward
 * pass streams over PCIe (maybe_offload_to_cpu: UVA reads, or a functional_call copy), BW_host the
 * assumed effective link rate (gpus.ts hostLinkBytesPerSec); W keeps them too (the copy path reads
 * them again from the GPU; UVA does not, less than 2 % of their link time). The simulator receives
 * it inside weightsS.
 *
 * Linear-attention layers (Qwen3-Next, Granite-4 hybrids) keep no KV and count no query-key
 * pairs. Llama 4's chunked local attention (attention_chunk_size C on its RoPE layers, every 4th
 * layer global and NoPE) is counted exactly: a query at position t attends keys floor(t/C)·C .. t
 * of its own chunk only, as vLLM's ChunkedLocalAttention computes it (make_local_attention_virtual_batches).
 *
 * BW and F are the GPU's published memory bandwidth and the compute peak of the profile's dtype
 * (gpus.ts computePeak: dense bf16 tensor cores for bf16 / fp16, the non-tensor fp32 peak for fp32).
 * A W8A8 checkpoint (fp8 / fbgemm_fp8 / ModelOpt FP8 / compressed-tensors with 8-bit activations)
 * splits 2 · P · T: its quantized linear layers' P_q active parameters run at the GPU's fp8 or
 * int8 peak F_q (gpus.ts quantizedGemmPeak), 2 · T · (P_q / F_q + (P − P_q) / F), as vLLM runs
 * them on fp8 / int8 tensor cores; on a GPU without fp8 (A100, A10) vLLM's Marlin kernel runs fp8
 * weights weight-only, at F. MLA decode tokens run kv_b_proj's part of P_q at F: vLLM multiplies
 * them by W_UK_T and W_UV, bf16 copies of kv_b_proj's halves ("we currently do not have quantized
 * bmm's", vllm/model_executor/layers/attention/mla_attention.py process_weights_after_loading);
 * MLA's context term 2 · B · C runs at kv_b_proj's peak (F_q where it is quantized). Weight-only
 * formats (AWQ, GPTQ, bitsandbytes, mxfp4) stay at F, and attention stays at F whatever the KV
 * dtype. e_mem, e_comp and the
 * overhead come from the profile's `step_time`, else the assumptions below (reported as such),
 * or from a calibration (calibrate.ts).
 *
 * Under tensor parallelism (tp > 1) the step adds the all-reduces vLLM issues, serially (vLLM
 * does not overlap them with compute: each waits for the GEMM before it and the next layer waits
 * for it), outside the max: + A + T · a(T), A = the calls' per-call latency, a(T) their bytes per
 * scheduled token over the GPU's interconnect ({@link allReduceWork}). It ignores activations'
 * memory traffic, the sampler and MoE routing skew (uniform routing is assumed).
 */
import type { AllReduceSpec, Dtype, ModelSpec, Profile, StepTimeFactors, StepTimeSpec } from '../../core/config/types';
import { attentionLayerTypes, dtypeBytes, estimate, isChunkedLocalAttention, mambaStateBytesPerSequence, mlaDecodeCopies, mlaKvBProjParams, paramCounts, quantizedActiveComputeParams, routedExpertBytes, stageModel } from '../../core/estimate/index';
import { NODE_GPUS } from '../../core/estimate/checks';
import { computePeak, DEFAULT_GPU, deviceGpu, gpuByName, gpuLabel, GPUS, hostLinkBytesPerSec, quantizedGemmPeak, tpGroupLink, type ComputePeak, type GpuSpec, type GroupLink } from '../../core/estimate/gpus';
import type { GpuFigureOrigin, GpuFigures, StageStepTime, StepTimeModel } from '../../core/protocol/run';
import { formatBytes, formatDuration, formatRate, formatSignificant } from '../../core/format';
import { mixerNames } from '../../core/config/mamba';

/**
 * What the model assumes when the profile's `step_time` leaves a factor out: typical achieved
 * fractions of peak for serving engines (an assumption, not a measurement of this setup;
 * calibrate to replace them).
 */
export const ASSUMED_STEP_TIME: Required<StepTimeFactors> = { computeEfficiency: 0.6, memoryEfficiency: 0.8, overheadMs: 0 };

/**
 * How vLLM touches the recurrent state, for the printed line and the doc comments: each step reads
 * and writes every scheduled request's state once per layer, in place by its state index. Decode:
 * selective_state_update (Mamba, Mamba-2), causal_conv1d_update (conv states),
 * fused_recurrent_gated_delta_rule (Gated DeltaNet), linear_decode_forward_triton (lightning: loads
 * kv_cache, stores the decayed sum); a prefill chunk gathers its initial state
 * (ssm_state[state_indices_tensor_p], vllm/model_executor/layers/mamba/mamba_mixer2.py) and
 * scatters the final one back (varlen_state). A first chunk's initial state is zeros, read all the
 * same by the gather (torch.where over has_initial_states): charged as a read. Not modelled: the
 * state copies of mamba_cache_mode "align" / "all" under prefix caching.
 */
export const recurrentStateNote = "vLLM's kernels update each scheduled request's state in place once a step (decode: selective_state_update, causal_conv1d_update, fused_recurrent_gated_delta_rule, linear_decode_forward_triton; a prefill chunk: its initial state gathered, its final state written back)";

/** The per-step work a model's step costs at peak, before efficiencies: seconds per unit. */
export interface StepWork {
  gpu: GpuSpec;
  /** The compute peak F the attention FLOPs and the unquantized weights' divide by: the profile dtype's (gpus.ts computePeak). */
  peak: ComputePeak;
  /**
   * W8A8 checkpoints (QuantizationSpec.activations): the fp8 / int8 peak F_q the quantized linear
   * layers' GEMMs run at (gpus.ts quantizedGemmPeak), and how many of the active parameters per GPU
   * they hold; null otherwise.
   */
  gemm: { peak: ComputePeak; params: number } | null;
  /** Why a W8A8 checkpoint's GEMMs stay at {@link peak} on this GPU (no fp8 tensor cores: vLLM's Marlin path), or undefined. */
  gemmNote?: string;
  /** Weight bytes per GPU (estimate weightsBytesPerGpu: replicated tensors included) but the routed experts' and the lookup tables' ({@link lookupTableBytes}) / bandwidth. */
  weightsS: number;
  /**
   * MLA W8A8 (a quantized kv_b_proj): what only a step with decode tokens reads, the 16-bit copies of
   * kv_b_proj's halves W_UK_T and W_UV (core/estimate mlaDecodeCopies) / bandwidth, and what only a
   * step with prefill chunks reads, the quantized kv_b_proj itself (mlaKvBProjParams quantizedBytes /
   * tp) / bandwidth: vLLM's forward_mqa multiplies decode tokens by the copies, forward_mha and
   * _compute_prefill_context call kv_b_proj (mla_attention.py). Both out of weightsS; 0 otherwise
   * (an unquantized kv_b_proj's halves are views of it: one weight, in weightsS).
   */
  decodeWeightsS: number;
  prefillWeightsS: number;
  /**
   * device.cpu_offload_gb: the weights per GPU kept in CPU memory (estimate cpuOffloadBytesPerGpu)
   * / the assumed host link rate (gpus.ts hostLinkBytesPerSec), read every forward pass; an
   * effective rate already, so the memory efficiency does not divide it. 0 without offloading.
   */
  hostReadS: number;
  /** MoE: all routed experts' bytes per GPU / bandwidth (0 for dense); a step reads the share {@link expertShareRead} gives. */
  expertWeightsS: number;
  /** MoE: routed experts per layer E and experts per token k; 0 for dense. */
  numExperts: number;
  numExpertsPerTok: number;
  /** Full-attention layers: L_f · KV bytes per token per layer per GPU / bandwidth. */
  perKvTokenS: number;
  /** 2 · active params per GPU but lm_head's / FLOP/s: 2 · (P_q / F_q + (P − P_q) / F) for a W8A8 checkpoint. */
  perTokenS: number;
  /**
   * A decode token's (a one-token chunk's) linear layers: perTokenS but for an MLA W8A8 checkpoint,
   * whose decode runs kv_b_proj's quantized params B_q at F instead of F_q:
   * perTokenS + 2 · B_q / tp · (1/F − 1/F_q) ({@link mlaDecodeBmmNote}).
   */
  perDecodeTokenS: number;
  /**
   * MLA: a prefill chunk's context token (computed before the chunk: a prefix-cache hit or an
   * earlier chunk) up-projected through kv_b_proj again: 2 · B / tp at kv_b_proj's peak
   * ({@link mlaContextFlops}); 0 without MLA.
   */
  perPrefillContextTokenS: number;
  /**
   * MLA: the bytes a prefill chunk's context token moves beyond its latent's read (which
   * perKvTokenS counts) as vLLM up-projects it: {@link mlaContextKvBytes} / bandwidth; 0 without MLA.
   */
  perPrefillContextKvS: number;
  /** lm_head per logits row (one per request scheduled in a step): 2 · vocab_size · hidden_size / tp / FLOP/s, at F (vLLM leaves lm_head unquantized in W8A8), at the fp32 peak where vLLM holds lm_head in fp32 (ModelSpec.fp32Weights). */
  perLogitsS: number;
  /** Full-attention layers, a prefill chunk's query-key pairs: L_f · H / tp · f_p / FLOP/s ({@link pairFlopsPerHead}: 4 · D but for MLA). */
  perPairS: number;
  /** Full-attention layers, a decode query's pairs: L_f · H / tp · f_d / FLOP/s (= perPairS but for MLA). */
  perDecodePairS: number;
  /** The sliding-window layers' window W (tokens); 0 without sliding-window layers. */
  slidingWindow: number;
  /** Llama 4: the chunked local-attention layers' chunk C (attention_chunk_size, tokens), whose are then the perSliding* coefficients; 0 without them. */
  attentionChunkSize: number;
  /** Sliding-window (or chunked) layers: L_s · KV bytes per token per layer per GPU / bandwidth (0 without them). */
  perSlidingKvTokenS: number;
  /** Sliding-window (or chunked) layers: 4 · L_s · H · D / tp / FLOP/s (0 without them). */
  perSlidingPairS: number;
  /**
   * Recurrent-state layers: 2 · one sequence's state bytes per GPU (core/estimate
   * mambaStateBytesPerSequence) / bandwidth, read and written once per request scheduled
   * ({@link recurrentStateNote}); 0 without them. MiniMax-M1 bf16 at tp 8: 2 · 18,350,080 B.
   */
  perRequestStateS: number;
  /**
   * Tensor parallelism: the step's all-reduces ({@link allReduceWork}), seconds at the assumed link
   * efficiency already (like hostReadS, neither efficiency divides them): allReduceS per step (the
   * calls' latency), perTokenAllReduceS per scheduled token (two-shot / ring bytes over the
   * interconnect), perTokenOneShotAllReduceS per scheduled token for a step of at most
   * oneShotAllReduceTokens tokens (vLLM's one-shot kernel). All 0 at tp 1.
   */
  allReduceS: number;
  perTokenAllReduceS: number;
  perTokenOneShotAllReduceS: number;
  oneShotAllReduceTokens: number;
  /** H100 / H200 bf16 at tp 4, 6, 8: the multimem kernel's seconds per token for steps of multimemAllReduceMinTokens .. multimemAllReduceMaxTokens tokens; 0 otherwise. */
  perTokenMultimemAllReduceS: number;
  multimemAllReduceMinTokens: number;
  multimemAllReduceMaxTokens: number;
  /**
   * NCCL's ring past the small-message fit: its seconds per token at the large-message rate, for
   * steps of ringAllReduceMinTokens tokens or more (0: none; {@link allReduceWork}), and its calls'
   * latency a step there, in place of allReduceS (the ring's 2 · (tp − 1) steps, {@link RING_STEP_LATENCY_S}).
   */
  perTokenRingAllReduceS: number;
  ringAllReduceMinTokens: number;
  ringAllReduceS: number;
}

/**
 * The fraction of the interconnect's per-direction bandwidth each all-reduce algorithm achieves on
 * the bytes it moves per GPU, and the latency of one call, fitted by hand (two points, 0.5 and
 * 4 MiB) to the H100 SXM table of vLLM PR #24111 ("Enable Torch Symmetric Memory All-Reduce By
 * Default": benchmarks/kernels/benchmark_device_communicators.py, bf16 [T, 8192], ms a call), the
 * message sizes of a serving step. TP 4: ca_1stage 0.010 / 0.038 ms at 0.5 / 4 MiB -> 3 · 3.5 MiB
 * in 28 µs, 393 GB/s = 0.87 of 450, intercept 6 µs; ca_2stage 0.017 / 0.043 -> 1.5 · 3.5 MiB in
 * 26 µs, 0.47, 13 µs; pynccl 0.017 / 0.037 -> 0.61, 14 µs; symm_mem_multimem 0.016 / 0.033 ->
 * 1.25 · 3.5 MiB in 17 µs, 0.60, 14 µs; TP 6 multimem 0.013 / 0.031 -> 0.53, 10 µs. Rounded:
 * one-shot 0.85, two-shot and NCCL's ring 0.5, multimem 0.55, and one latency of 10 µs for all
 * (one-shot's 6 µs is then overstated by 4 µs, two-shot's 13 understated by 3). Measured on H100
 * only: applied to every card (its interconnect's bandwidth), an assumption there, which the
 * profile's step_time.all_reduce replaces ({@link allReduceLink}).
 */
export const ALL_REDUCE_EFFICIENCY = { oneShot: 0.85, twoShot: 0.5, multimem: 0.55, ring: 0.82 } as const;

/**
 * NCCL's ring past the sizes vLLM PR #24111's table covers ({@link ALL_REDUCE_EFFICIENCY}: 0.5-4 MiB):
 * the classic latency-bandwidth (α-β, Hockney) model of a ring all-reduce, t = α + 2 · (tp − 1)/tp ·
 * M / β (Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication Operations in
 * MPICH", IJHPCA 19(1), 2005: the ring's reduce-scatter + all-gather moves 2 · (p − 1)/p · n bytes
 * per process), with β the bus bandwidth NCCL's ring reaches at large messages, which nccl-tests'
 * all_reduce_perf defines the same way (busbw = 2 · (n − 1)/n · size / time, nccl-tests
 * doc/PERFORMANCE.md) and which rises with the size to that plateau. On 8 H100 SXM over NVLink
 * (450 GB/s a direction): "NCCL can get an effective NVLink bandwidth of 370GB/s, which you can
 * observe as BusBw ... when running with NCCL_ALGO=RING" (NCCL's maintainer, sjeaugey,
 * https://github.com/NVIDIA/nccl-tests/issues/212, 2024-05-06); "when using ALGO=RING, busbw is
 * about 365-370 GBps when gpus from 2 to 8" at 2-4 GiB messages (all_reduce_perf -b 2G -e 4G,
 * https://github.com/NVIDIA/nccl/issues/1455). 370 / 450 = 0.82 of the link (the ~20 % NVLink
 * protocol overhead the maintainer names), its {@link ALL_REDUCE_EFFICIENCY}.ring, applied on every
 * card's link as the small-message fit is: an assumption off H100 SXM, where it may be high (an
 * A100 NVLink-bridged pair, NV12, reports "Bus_BW: 208 GBps", 0.69 of 300, in all_reduce_perf -b 8
 * -e 12G: https://github.com/NVIDIA/nccl-tests/issues/178). α is the ring's own, 2 · (tp − 1) ·
 * {@link RING_STEP_LATENCY_S}, not the small-message fit's {@link ALL_REDUCE_LATENCY_S}.
 * 128 MiB at tp 8 (an 8,192-token prefill chunk of Llama-3.1-70B, 8,192 · 8,192 · 2 B): 1.75 ·
 * 134,217,728 B / (450e9 · 0.82) = 636.53 µs + 14 · 3.325 = 46.55 µs, 683.08 µs (was + 10 µs,
 * 646.53; at the fit's two-shot rate / (450e9 · 0.5) = 1,043.92 µs + 10). vLLM PR #42324 measured
 * pynccl at 561 µs there: at tp 8 on H100 SXM NCCL runs NVLink SHARP (NVLS), whose busbw reaches
 * ~480 GB/s on 8 GPUs (NVIDIA/nccl-tests#212, NVIDIA/nccl#1455), not the ring; the rows from 32 to
 * 128 MiB rise at 479-481 GB/s busbw. Since s49 the band runs NVLS at its bus bandwidth where the
 * card has one for the group size ({@link nvlsAllReduce}): 489.33 + 46.55 = 535.88 µs there; since
 * s50 plus NVLS's own fitted latency in place of the ring's, 489.33 + 56.7 = 546.03 µs.
 */
export const RING_FIT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The latency of one step of NCCL's ring past {@link RING_FIT_MAX_BYTES}, seconds: 3.325 µs, charged
 * 2 · (tp − 1) times a call. A ring all-reduce is a reduce-scatter and an all-gather of tp − 1 steps
 * each, every step a send to the next GPU that waits on the previous one, so the α-β model's latency
 * term is 2 · (p − 1) · α (Thakur, Rabenseifner and Gropp 2005, the ring's reduce-scatter +
 * all-gather: 2 · (p − 1) · α + 2 · (p − 1)/p · n · β), and NCCL's own tuning model charges the
 * same count of steps (src/graph/tuning.cc ncclTopoTuneModel: ring all-reduce latency baseLat +
 * nsteps · hwLat, nsteps = 2 · (nRanks − 1); Ring/Simple over NVLink 3.4 µs a step). Until s46
 * the ring band charged the small-message fit's one 10 µs a call ({@link ALL_REDUCE_LATENCY_S},
 * the intercept of the two-shot line, whose 0.5 efficiency absorbs what the large-message β does
 * not), which put a ring call past 4 MiB about 10 µs under vLLM's measurement: the cause of the
 * drop at the band's edge. Fitted to vLLM PR #24111's pynccl row at 4 MiB, TP 4 on H100 SXM,
 * 37 µs: 37 − 1.5 · 4 MiB / 369e9 = 37 − 17.05 = 19.95 µs over 2 · 3 steps = 3.325 µs a step,
 * within 2 % of NCCL's 3.4. TP 4, 4 MiB: 19.95 + 17.05 = 37.0 µs (was 10 + 17.05 = 27.05); tp 8:
 * 46.55 µs a call; tp 2: 6.65. Below the band (NCCL's LL / LL128 protocols, vLLM's kernels) the
 * fit's line stands: a 0.5 MiB call at TP 4, 10 + 1.5 · 0.5 MiB / 225e9 = 13.50 µs (vLLM's pynccl
 * row 17, ca_2stage 17), unchanged. Measured on H100 NVLink only, applied on every link; the
 * profile's step_time.all_reduce.latency_us, where given, replaces it as it does the fit's.
 */
export const RING_STEP_LATENCY_S = (37e-6 - (1.5 * RING_FIT_MAX_BYTES) / (450e9 * 0.82)) / 6;

/**
 * The latency of one all-reduce call, seconds: 10 µs, fitted to vLLM PR #24111's H100 table
 * ({@link ALL_REDUCE_EFFICIENCY}). Charged once per call, one figure for every algorithm though that
 * source gives each its own intercept (TP 4: one-shot 6 µs, two-shot 13, NCCL 14, multimem 14; TP 6
 * multimem 10): a per-algorithm latency is a constant per token band, which the simulator's step
 * (simulator.cc StepSeconds: allReduceS + T · the band's per-token seconds) has no field for (two
 * more through simulator.h, the addon, the wasm ABI and the run schema). The profile's
 * step_time.all_reduce.latency_us replaces it. In the sweep report's words: an all-reduce costs
 * ~10 µs a call + its bytes / bus bandwidth (webview/sweep.ts sweepAssumptions).
 * Checked against calls measured apart from the fit, all on H100 NVLink under CUDA graphs, where a
 * small call is its latency: vLLM PR #42324's last SM 9.0 table (World Size 8 by its order: the
 * stored excerpt lacks the heading; benchmark_device_communicators.py), 512 KiB: symm_mem_multimem 11 µs, symm_mem_two_shot 15,
 * pynccl 24 (https://github.com/vllm-project/vllm/pull/42324), the model's multimem 10 + 1.125 ·
 * 524,288 B / (450e9 · 0.55) = 12.38 µs; NCCL's NVLink SHARP all-reduce of 128 B-64 KiB on two
 * H100 SXM, nccl-tests with CUDA graphs: "approximately 6us"
 * (https://github.com/NVIDIA/nccl/issues/1259, NCCL 2.20.5), the one-shot intercept's 6.
 */
export const ALL_REDUCE_LATENCY_S = 10e-6;

/** The GPU vLLM PR #24111's all-reduce timings were taken on ({@link ALL_REDUCE_EFFICIENCY}). */
const ALL_REDUCE_FITTED_ON = 'H100 SXM';

/**
 * The all-reduce figures a step charges: each algorithm's achieved fraction of the interconnect
 * (one-shot, two-shot / NCCL ring / the pipeline's send and all-gather, multimem) and one call's
 * latency, seconds; `given` names the profile keys that set them (step_time.all_reduce's
 * efficiency.one_shot, .two_shot, .multimem, latency_us), the rest are {@link ALL_REDUCE_EFFICIENCY}
 * and {@link ALL_REDUCE_LATENCY_S}.
 */
export interface AllReduceLink {
  efficiency: { oneShot: number; twoShot: number; multimem: number };
  latencyS: number;
  given: string[];
}

/** The all-reduce figures of a profile's step_time.all_reduce (`spec`), each absent one assumed ({@link AllReduceLink}). */
export function allReduceLink(spec: AllReduceSpec | undefined): AllReduceLink {
  const e = spec?.efficiency ?? {};
  const given = [
    ...(e.oneShot !== undefined ? ['efficiency.one_shot'] : []),
    ...(e.twoShot !== undefined ? ['efficiency.two_shot'] : []),
    ...(e.multimem !== undefined ? ['efficiency.multimem'] : []),
    ...(spec?.latencyUs !== undefined ? ['latency_us'] : []),
  ];
  return {
    efficiency: { oneShot: e.oneShot ?? ALL_REDUCE_EFFICIENCY.oneShot, twoShot: e.twoShot ?? ALL_REDUCE_EFFICIENCY.twoShot, multimem: e.multimem ?? ALL_REDUCE_EFFICIENCY.multimem },
    latencyS: spec?.latencyUs !== undefined ? spec.latencyUs * 1e-6 : ALL_REDUCE_LATENCY_S,
    given,
  };
}

/**
 * NCCL's ring's large-message efficiency a tp group of `tp` GPUs on `card` gets: the fraction of
 * its group link (gpus.ts tpGroupLink) the ring runs at on messages past {@link RING_FIT_MAX_BYTES},
 * and where it comes from. The profile's step_time.all_reduce.efficiency.two_shot where given (it
 * holds for the ring at every size); else the link's own (GroupLink.ring: the card's
 * ringAllReduceEfficiency, measured for the table's NVLink-bridged pairs or a described GPU's
 * ring_all_reduce_efficiency, or PCIe past a bridged pair, gpus.ts BRIDGED_PCIE_RING_EFFICIENCY);
 * else {@link ALL_REDUCE_EFFICIENCY}.ring, 0.82, H100 SXM NVLink's, assumed off it.
 * A100 PCIe 80GB at tp 2: 0.69 of 300e9 (NVIDIA/nccl-tests#178), was 0.82; at tp 4: 0.63 of PCIe
 * Gen4's 32e9. H100 NVL at tp 2: 0.39 of 300e9 (NVIDIA/nccl-tests#194).
 */
export function ringAllReduceEfficiency(card: GpuSpec, tp: number, link: AllReduceLink): { efficiency: number; source: string } {
  if (link.given.includes('efficiency.two_shot')) return { efficiency: link.efficiency.twoShot, source: 'step_time.all_reduce.efficiency.two_shot' };
  const group = tpGroupLink(card, tp);
  if (group.ring) return group.ring;
  const onFit = card.name === ALL_REDUCE_FITTED_ON && !card.userGiven;
  return {
    efficiency: ALL_REDUCE_EFFICIENCY.ring,
    source: `370 GB/s of 450 on H100 NVLink: NVIDIA/nccl-tests#212, NVIDIA/nccl#1455${onFit ? '' : `; assumed on ${gpuLabel(card)}${card.userGiven ? ': set device.gpu.ring_all_reduce_efficiency to its own' : ''}`}`,
  };
}

/** One call's latency of NCCL's ring past the fit, seconds: 2 · (tp − 1) · {@link RING_STEP_LATENCY_S}, or the profile's latency_us where given. */
export function ringCallLatencyS(tp: number, link: AllReduceLink): number {
  return link.given.includes('latency_us') ? link.latencyS : 2 * (tp - 1) * RING_STEP_LATENCY_S;
}

/**
 * NCCL's NVLink SHARP (NVLS) all-reduce where NCCL would run it on messages past
 * {@link RING_FIT_MAX_BYTES} in place of the ring: its large-message bus bandwidth, bytes/s, and
 * where it comes from; undefined where the ring stands. NCCL turns NVLS on by default where the
 * GPUs report NVLink multicast (NCCL_NVLS_ENABLE=2: src/transport/nvls.cc ncclNvlsInit reads
 * CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED; GpuSpec.nvlinkMulticast, NVSwitch boards) and its tuner
 * picks it where its model says it is faster; vLLM does not set NCCL_NVLS_ENABLE. The card's
 * measured busbw by GPU count (GpuSpec.nvlsAllReduceBusBytesPerSec: H100 SXM and H200 420 / 440 /
 * 460 / 480 GB/s at 5 / 6 / 7 / 8 GPUs, NVIDIA/nccl#1455; at 2-4 GPUs NVLS's busbw is the ring's,
 * no entry). Undefined where the profile gives efficiency.two_shot (the user's figure for NCCL at
 * every size), on a link that is not the card's own NVLink (gpus.ts tpGroupLink), without multicast,
 * or for a group size the card has no figure for (B200: not published the same way; a described
 * GPU: none, NCCL's ring).
 * The α-β model's β is this bus bandwidth over the ring's bytes, 2 · (tp − 1)/tp · M (nccl-tests'
 * busbw is defined on them whatever the algorithm moves), the peak NVLS reaches at GiB messages
 * ("256M is too small to reach peak bandwidth", nccl-tests#212); α is the card's NVLS latency
 * (GpuSpec.nvlsAllReduceLatencyS: 56.7 µs on H100 SXM / H200, gpus.ts NVLINK4_NVLS_LATENCY_S,
 * fitted to Azure's per-size NVLS table on 8 H200 at 8-512 MiB), so that the busbw ramps with size
 * ({@link nvlsBusAt}: 249 GB/s at 16 MiB, 430 at 128 at tp 8); the profile's latency_us where
 * given; else the ring's ({@link ringCallLatencyS}). Checked apart from the fit against vLLM PR
 * #42324's pynccl rows on 8 H100 SXM (its last SM 9.0 table), 8 / 16 / 32 / 64 / 128 MiB measured
 * 76 / 121 / 195 / 316 / 561 µs: 87.3 / 117.9 / 179.0 / 301.4 / 546.0 (+14.8 / −2.6 / −8.2 /
 * −4.6 / −2.7 %; with s49's α, the ring's 46.55 µs: 77.1 / 107.7 / 168.9 / 291.2 / 535.9, +1.4 /
 * −11 / −13 / −7.8 / −4.5 %; the ring: 683.1 at 128 MiB, +21.8 %). The line is over at 8 MiB
 * (Azure's row too, +8.2 %), where NVLS's busbw rises faster than an α-β line, and under at 32
 * MiB, where it rises slower; the sizes bf16 hands NCCL on H100 at tp 6 and 8 (past vLLM's 64 MiB
 * symmetric-memory limit) read 2.7-5.1 % under (vLLM's 128 MiB row; Azure's 128-512 MiB rows). NCCL's own tuning model's NVLS latency, 25 µs a
 * call (src/graph/tuning.cc hwLatencies NVLink NVLS Simple), would put every size under (514.3 µs
 * at 128 MiB, −8.3 %; 147.3 at 32 MiB, −24 %).
 */
export function nvlsAllReduce(card: GpuSpec, tp: number, link: AllReduceLink): NvlsAllReduce | undefined {
  if (link.given.includes('efficiency.two_shot') || card.nvlinkMulticast !== true) return undefined;
  if (tpGroupLink(card, tp).interconnect !== 'NVLink') return undefined;
  const bus = card.nvlsAllReduceBusBytesPerSec?.[tp];
  if (bus === undefined) return undefined;
  // α: the profile's latency_us where given (every NCCL call's), else the card's fitted NVLS latency, else the ring's
  // (a card with an NVLS bus bandwidth but no fitted α: its calls priced, and named, as the ring's).
  const latency: Pick<NvlsAllReduce, 'latencyS' | 'latencySource' | 'latencyFrom'> = link.given.includes('latency_us')
    ? { latencyS: link.latencyS, latencySource: 'step_time.all_reduce latency_us', latencyFrom: 'latency_us' }
    : card.nvlsAllReduceLatencyS !== undefined
      ? { latencyS: card.nvlsAllReduceLatencyS, latencySource: card.nvlsAllReduceLatencySource ?? card.nvlsAllReduceSource ?? card.interconnectSource, latencyFrom: 'nvls' }
      : { latencyS: ringCallLatencyS(tp, link), latencySource: "the ring's", latencyFrom: 'ring' };
  return { busBytesPerSec: bus, source: card.nvlsAllReduceSource ?? card.interconnectSource, ...latency };
}

/** NCCL's NVLS all-reduce as the step time models it ({@link nvlsAllReduce}). */
export interface NvlsAllReduce {
  /** Its peak bus bandwidth at this group size, bytes/s: the α-β line's β (GpuSpec.nvlsAllReduceBusBytesPerSec). */
  busBytesPerSec: number;
  /** Where {@link busBytesPerSec} comes from, in words. */
  source: string;
  /** A call's latency, seconds: the α-β line's α. */
  latencyS: number;
  /** Where {@link latencyS} comes from, in words. */
  latencySource: string;
  /**
   * Whose α {@link latencyS} is: 'nvls' the card's own fitted NVLS latency (GpuSpec.nvlsAllReduceLatencyS),
   * 'latency_us' the profile's step_time.all_reduce latency_us (every NCCL call's), 'ring' the ring's
   * 2 · (tp − 1) steps ({@link ringCallLatencyS}) on a card with no NVLS α of its own, which no report
   * may call NVLS's.
   */
  latencyFrom: 'nvls' | 'latency_us' | 'ring';
}

/**
 * The bus bandwidth NVLS's α-β line gives a message of `bytes` at `tp` GPUs, bytes/s: the ring's
 * bytes over the call's time, 2 · (tp − 1)/tp · M / (α + 2 · (tp − 1)/tp · M / busbw), which rises
 * with size to the peak busbw ({@link nvlsAllReduce}). H100 SXM at tp 8, 16 MiB: 29.36 MB /
 * (56.7 + 61.17 µs) = 249 GB/s (Azure's 8-H200 table: 240).
 */
export function nvlsBusAt(nvls: { busBytesPerSec: number; latencyS: number }, tp: number, bytes: number): number {
  const ringBytes = ((2 * (tp - 1)) / tp) * bytes;
  return ringBytes / (nvls.latencyS + ringBytes / nvls.busBytesPerSec);
}

/** The profile's all-reduce figures (step_time.all_reduce, else assumed): {@link allReduceLink}. */
export function profileAllReduceLink(profile: Pick<Profile, 'stepTime'>): AllReduceLink {
  return allReduceLink(profile.stepTime?.allReduce);
}

/** NCCL's NVLink SHARP all-reduce in the printed words ({@link nvlsAllReduce}). */
const NVLS_TEXT = "NCCL's NVLink SHARP all-reduce (NVLS)";

/** vLLM's custom all-reduce's largest message, bytes (custom_all_reduce.py CustomAllreduce max_size=8192 * 1024); larger ones go to NCCL. */
export const CUSTOM_ALL_REDUCE_MAX_BYTES = 8 * 1024 * 1024;

const KiB = 1024;
const MiB = 1024 * 1024;

/**
 * vLLM's symmetric-memory all-reduce (VLLM_ALLREDUCE_USE_SYMM_MEM, default 1) by compute capability
 * (GpuSpec.computeCapability), as vllm/distributed/device_communicators/all_reduce_utils.py and
 * symm_mem.py list it, per tp: `custom`, the custom all-reduce's largest message once symmetric
 * memory is on (CUSTOM_ALL_REDUCE_MAX_SIZES; CustomAllreduce takes min(it, max_size 8 MiB));
 * `symmMem`, the symmetric-memory all-reduce's largest (SYMM_MEM_ALL_REDUCE_MAX_SIZES); `multimem`,
 * the tp at which it runs multimem_all_reduce_ (SymmMemCommunicator._WORLD_SIZES_MULTIMEM), else
 * its two_shot_all_reduce_. Bytes.
 */
const SYMM_MEM_ALL_REDUCE: Record<string, { custom: Record<number, number>; symmMem: Record<number, number>; multimem: number[] }> = {
  '9.0': { custom: { 2: 64 * MiB, 4: 32 * MiB, 6: 512 * KiB, 8: 256 * KiB }, symmMem: { 2: 64 * MiB, 4: 32 * MiB, 6: 64 * MiB, 8: 64 * MiB }, multimem: [4, 6, 8] },
  '10.0': { custom: { 2: 2 * MiB, 4: 2 * MiB, 6: 1 * MiB, 8: 1 * MiB }, symmMem: { 2: 8 * MiB, 4: 32 * MiB, 6: 128 * MiB, 8: 128 * MiB }, multimem: [6, 8] },
  '10.3': { custom: { 2: 4 * MiB, 4: 4 * MiB, 6: 8 * MiB, 8: 4 * MiB }, symmMem: { 2: 4 * MiB, 4: 32 * MiB, 6: 32 * MiB, 8: 64 * MiB }, multimem: [6, 8] },
};

/**
 * Where vLLM's symmetric-memory all-reduce runs for `gpu` at `tp` (SymmMemCommunicator enabled: a
 * capability and tp its tables list, NVLink multicast, GpuSpec.nvlinkMulticast): the custom
 * all-reduce's cut limit, the symmetric-memory limit and whether it is multimem; else undefined.
 */
export function symmMemAllReduce(gpu: Pick<GpuSpec, 'computeCapability' | 'nvlinkMulticast' | 'interconnect'>, tp: number): { custom: number; symmMem: number; multimem: boolean } | undefined {
  const table = gpu.computeCapability !== undefined ? SYMM_MEM_ALL_REDUCE[gpu.computeCapability] : undefined;
  if (!table || gpu.nvlinkMulticast !== true || gpu.interconnect !== 'NVLink' || table.symmMem[tp] === undefined) return undefined;
  return { custom: Math.min(table.custom[tp]!, CUSTOM_ALL_REDUCE_MAX_BYTES), symmMem: table.symmMem[tp]!, multimem: table.multimem.includes(tp) };
}

/** The all-reduces of one step ({@link allReduceWork}): seconds per step and per token in each token band. */
export interface AllReduceWork {
  /** All-reduces per step (this stage's). */
  calls: number;
  /** One call's bytes per scheduled token: hidden_size · bytes(dtype). */
  messageBytesPerToken: number;
  /** The calls' latency, seconds per step. */
  perStepS: number;
  /** Two-shot / NCCL ring, seconds per scheduled token (the steps outside the bands below). */
  perTokenS: number;
  /** The most tokens a one-shot step has (0: none), and its seconds per token. */
  oneShotTokens: number;
  perTokenOneShotS: number;
  /** The band of steps on the multimem kernel, tokens (max 0: none), and its seconds per token. */
  multimemMinTokens: number;
  multimemMaxTokens: number;
  perTokenMultimemS: number;
  /**
   * NCCL's ring on messages past {@link RING_FIT_MAX_BYTES} (the small-message fit's largest): the
   * first step size it runs at the large-message rate, tokens (0: none), and its seconds per token
   * there ({@link ringAllReduceEfficiency} of the link).
   */
  ringMinTokens: number;
  perTokenRingS: number;
  /** The ring band's calls' latency, seconds a step: calls · 2 · (tp − 1) · {@link RING_STEP_LATENCY_S}, or the profile's latency_us a call (0: no band). */
  perStepRingS: number;
  /** The ring's large-message efficiency and its source ({@link ringAllReduceEfficiency}). */
  ring: { efficiency: number; source: string };
  /** NCCL's NVLink SHARP all-reduce in place of the ring in that band, its bus bandwidth (bytes/s) and source ({@link nvlsAllReduce}); absent: the ring. */
  nvls?: NvlsAllReduce;
  /** Which algorithm runs which sizes, in words. */
  algorithm: string;
  /** The link the tp group's all-reduces cross (gpus.ts tpGroupLink): the card's, or less where the group is partly connected. */
  link: GroupLink;
}

/**
 * The all-reduces one step issues under tensor parallelism, per scheduled token, as vLLM runs
 * them (tp > 1; all 0 at tp 1):
 * - which: one after each block whose output projection is split over the GPUs' inputs, each of
 *   M = T · hidden_size · b bytes (T tokens scheduled, b the activation dtype's bytes): a layer's
 *   mixer (attention's o_proj, a Mamba / linear-attention mixer's out_proj: RowParallelLinear with
 *   reduce_results, vllm/model_executor/layers/linear.py) and its MLP (down_proj, RowParallelLinear)
 *   or MoE block (the experts' summed output, one tensor_model_parallel_all_reduce, FusedMoE or the
 *   model's moe block), where the layer has them ({@link tpAllReduceCalls}); plus the input
 *   embedding's (VocabParallelEmbedding sums the vocabulary shards' rows: one all-reduce, on the
 *   first pipeline stage). Llama-3.1-70B: 80 layers · 2 + 1 = 161 a step.
 * - how (vllm/distributed/device_communicators/cuda_communicator.py all_reduce, in its order: the
 *   custom all-reduce where should_custom_ar, then PyTorch symmetric memory where
 *   should_use_symm_mem, else NCCL; custom_all_reduce.py, symm_mem.py, all_reduce_utils.py,
 *   csrc/custom_all_reduce.cuh): the custom all-reduce runs where tp is 2, 4, 6 or 8, the GPUs can
 *   reach each other's memory (not RTX 4090s) and, for tp > 2, are fully connected (NVLink, or the
 *   MI300X's Infinity Fabric mesh, which vLLM on ROCm finds through amdsmi's XGMI link type); for
 *   messages under 8 MiB ({@link CUSTOM_ALL_REDUCE_MAX_BYTES}). Its one-shot kernel
 *   (cross_device_reduce_1stage: every GPU reads all tp − 1 peers' whole buffers) runs at tp 2 for every message the custom all-reduce takes and,
 *   on NVLink, below 512 KiB at tp 4 and below 256 KiB at tp 6 and 8: (tp − 1) · M bytes in per GPU.
 *   Its two-shot kernel (cross_device_reduce_2stage: reduce-scatter, then all-gather, each GPU
 *   reading (tp − 1)/tp · M in each) and NCCL's ring move 2 · (tp − 1)/tp · M per GPU; at tp 2 the
 *   same bytes as one-shot. On NVSwitch boards with NVLink SHARP (GpuSpec.nvlinkMulticast) of a
 *   capability vLLM's tables list (GpuSpec.computeCapability: H100 SXM, H200, H20 "9.0"; B200
 *   "10.0"), vLLM's default symmetric-memory all-reduce ({@link symmMemAllReduce}) cuts the custom
 *   all-reduce's limit (9.0: 8 MiB at tp 2 and 4, 512 KiB at tp 6, 256 KiB at tp 8; 10.0: 2 MiB at
 *   tp 2 and 4, 1 MiB at tp 6 and 8) and takes bf16 messages up to its own (9.0: 64 MiB, 32 MiB at
 *   tp 4; 10.0: 8 / 32 / 128 / 128 MiB at tp 2 / 4 / 6 / 8): PyTorch's multimem_all_reduce_ where
 *   the table lists the tp (9.0: 4, 6, 8; 10.0: 6, 8; NVLink SHARP: each GPU asks the switch for
 *   its 1/tp slice reduced over every GPU, multimem.ld_reduce, then multicasts it, multimem.st: a
 *   GPU serves its whole buffer to the switch's reads and receives every slice once, (tp + 1)/tp ·
 *   M each way), else its two_shot_all_reduce_, 2 · (tp − 1)/tp · M as the custom two-shot's.
 * - over: the link the tp group gets (gpus.ts tpGroupLink; AllReduceWork.link): the card's
 *   interconnect, but PCIe past a pair of NVLink-bridged boards (H100 NVL: not fully connected,
 *   so the custom all-reduce is off and NCCL's ring runs) and one Infinity Fabric link a peer
 *   (MI300X tp 2: 64e9 B/s a direction, not the 8-GPU node's 448e9).
 * - time: each call = `link`'s latency + its bytes per GPU / (the group link's bytes/s · the
 *   algorithm's efficiency in `link`; default {@link ALL_REDUCE_LATENCY_S} and
 *   {@link ALL_REDUCE_EFFICIENCY}, the profile's step_time.all_reduce where given; NCCL's ring on
 *   messages past {@link RING_FIT_MAX_BYTES} at its large-message bus bandwidth, 0.82, the α-β
 *   model's β, AllReduceWork.ringMinTokens, unless the profile gives efficiency.two_shot; on NVSwitch
 *   boards with NVLink multicast at 5-8 GPUs NCCL's NVLink SHARP all-reduce instead, at its measured
 *   bus bandwidth, {@link nvlsAllReduce}), one direction of the GPU's link (GpuSpec interconnect:
 *   NVLink, or PCIe for cards without it; RTX 4090s have no peer access, so NCCL stages the ring
 *   through host memory over the same PCIe link). Charged serially: vLLM does not overlap the
 *   all-reduce with compute (the next GEMM needs its sum).
 * Llama-3.1-70B bf16 at tp 8 on H100 SXM, 256 tokens: M = 256 · 8,192 · 2 = 4 MiB, multimem,
 * 1.125 · 4,194,304 B / (450e9 · 0.55) = 19.07 µs + 10 µs a call, 161 calls: 4.680 ms a step (on
 * an A100 SXM, two-shot: 1.75 · M / (300e9 · 0.5) = 48.93 µs + 10 µs, 9.488 ms). 8,192 tokens,
 * M = 128 MiB, past the symmetric-memory band's 64 MiB: NCCL's NVLink SHARP all-reduce, 1.75 · M /
 * 480e9 = 489.33 µs + its 56.7 µs a call, 87.91 ms a step ({@link nvlsAllReduce}; the ring,
 * 1.75 · M / (450e9 · 0.82) = 636.53 µs + 46.55, 109.98 ms: {@link RING_FIT_MAX_BYTES}).
 * Not modelled: FlashInfer's all-reduce and its all-reduce + RMSNorm fusion, NCCL's
 * symmetric-memory path (both off by default), expert parallelism's all-to-all in place of the MoE
 * all-reduce, the logits' all-gather over the vocabulary shards.
 */
export function allReduceWork(m: ModelSpec, card: GpuSpec, dtype: Dtype, tp: number, firstStage = true, link: AllReduceLink = allReduceLink(undefined)): AllReduceWork {
  const none: AllReduceWork = { calls: 0, messageBytesPerToken: 0, perStepS: 0, perTokenS: 0, oneShotTokens: 0, perTokenOneShotS: 0, multimemMinTokens: 0, multimemMaxTokens: 0, perTokenMultimemS: 0, ringMinTokens: 0, perTokenRingS: 0, perStepRingS: 0, ring: { efficiency: ALL_REDUCE_EFFICIENCY.ring, source: '' }, algorithm: '', link: tpGroupLink(card, 1) };
  if (tp <= 1) return none;
  const calls = tpAllReduceCalls(m, firstStage);
  const perToken = m.hiddenSize * dtypeBytes(dtype);
  // The link this tp group gets (NVLink-bridged pairs past a pair: PCIe; Infinity Fabric: a link a peer).
  const group = tpGroupLink(card, tp);
  const gpu: GpuSpec = { ...card, interconnect: group.interconnect, interconnectBytesPerSec: group.bytesPerSec, interconnectSource: group.source };
  const rate = (kind: keyof AllReduceLink['efficiency']) => gpu.interconnectBytesPerSec * link.efficiency[kind];
  // Fully connected: NVLink on NVSwitch, or AMD's Infinity Fabric mesh (vLLM on ROCm: platforms/rocm.py
  // is_fully_connected reads amdsmi_topo_get_link_type XGMI; the same custom all-reduce kernels, hipified).
  const fullyConnected = gpu.interconnect === 'NVLink' || gpu.interconnect === 'Infinity Fabric';
  const custom = [2, 4, 6, 8].includes(tp) && gpu.interconnect !== 'PCIe, no P2P' && (tp === 2 || fullyConnected);
  // Symmetric memory (Hopper, Blackwell): the custom all-reduce below its cut limit (should_custom_ar: M < max_size), then
  // for bf16 the symmetric-memory all-reduce up to its own (should_use_symm_mem: M <= max_size): multimem, or its
  // two-shot (2 · (tp − 1)/tp · M, the custom two-shot's and the ring's bytes: no band of its own).
  const symm = custom ? symmMemAllReduce(gpu, tp) : undefined;
  const band = symm && dtype === 'bf16' ? { min: Math.ceil(symm.custom / perToken), max: Math.floor(symm.symmMem / perToken) } : undefined;
  const multimem = band && symm!.multimem ? band : undefined;
  const customMax = symm?.custom ?? CUSTOM_ALL_REDUCE_MAX_BYTES;
  // The one-shot kernel below its threshold, T · h · b < limit (custom_all_reduce.cuh allreduce(): world_size 2 always
  // runs cross_device_reduce_1stage, so at tp 2 the whole custom range; fully connected tp 4: 512 KiB, tp 6 and 8: 256 KiB).
  const oneShotLimit = !custom ? 0 : tp === 2 ? customMax : fullyConnected ? (tp <= 4 ? 512 * 1024 : 256 * 1024) : 0;
  const oneShotTokens = oneShotLimit > 0 ? Math.floor((oneShotLimit - 1) / perToken) : 0;
  // NCCL's ring (cuda_communicator.py: what neither the custom nor the symmetric-memory all-reduce takes): every size
  // without the custom all-reduce, above the symmetric-memory band where there is one (M > its limit), else from the custom
  // limit on (should_custom_ar: M < max_size). Past RING_FIT_MAX_BYTES it runs at its large-message rate, unless the
  // profile's efficiency.two_shot (NCCL's ring's too) replaces the assumed figures, which then hold at every size.
  const ncclFromTokens = !custom ? 1 : band ? band.max + 1 : Math.ceil(customMax / perToken);
  const ringMinTokens = link.given.includes('efficiency.two_shot') ? 0 : Math.max(ncclFromTokens, Math.floor(RING_FIT_MAX_BYTES / perToken) + 1);
  const ring = ringAllReduceEfficiency(card, tp, link);
  const nvls = ringMinTokens > 0 ? nvlsAllReduce(card, tp, link) : undefined;
  const n = (x: number) => x.toLocaleString('en-US');
  const oneShot = tp === 2 ? `one-shot, M per GPU at tp 2, up to ${n(oneShotTokens)} tokens` : `one-shot, (tp − 1) · M per GPU, up to ${n(oneShotTokens)} tokens`;
  const twoShot = oneShotTokens > 0 && oneShotLimit < customMax ? '; two-shot, 2 · (tp − 1)/tp · M, above' : '';
  const algorithm = custom
    ? `vLLM's custom all-reduce below ${formatBytes(customMax)} (${oneShot}${twoShot}), ${multimem ? `the symmetric-memory multimem all-reduce (NVLink SHARP, (tp + 1)/tp · M) from ${n(multimem.min)} to ${n(multimem.max)} tokens (vLLM's default on this GPU in bf16), ` : band ? `the symmetric-memory two-shot all-reduce (2 · (tp − 1)/tp · M) from ${n(band.min)} to ${n(band.max)} tokens (vLLM's default on this GPU in bf16), ` : ''}${!nvls ? "NCCL's ring (2 · (tp − 1)/tp · M) above" : ringMinTokens > ncclFromTokens ? `NCCL's ring (2 · (tp − 1)/tp · M) above, ${NVLS_TEXT} past 4 MiB` : `${NVLS_TEXT} above`}`
    : `NCCL's ring, 2 · (tp − 1)/tp · M per GPU (${gpu.interconnect === 'PCIe, no P2P' ? `no peer access between ${gpu.name}s: vLLM's custom all-reduce is off and NCCL goes through host memory` : tp > 2 && !fullyConnected ? 'vLLM\'s custom all-reduce is off for more than 2 PCIe GPUs' : `vLLM's custom all-reduce runs at tp 2, 4, 6 or 8 only`})${nvls ? `, ${NVLS_TEXT} past 4 MiB` : ''}`;
  return {
    calls,
    messageBytesPerToken: perToken,
    perStepS: calls * link.latencyS,
    perTokenS: (calls * ((2 * (tp - 1)) / tp) * perToken) / rate('twoShot'),
    oneShotTokens,
    perTokenOneShotS: oneShotTokens > 0 ? (calls * (tp - 1) * perToken) / rate('oneShot') : 0,
    multimemMinTokens: multimem?.min ?? 0,
    multimemMaxTokens: multimem?.max ?? 0,
    perTokenMultimemS: multimem ? (calls * ((tp + 1) / tp) * perToken) / rate('multimem') : 0,
    ringMinTokens,
    perTokenRingS: ringMinTokens > 0 ? (calls * ((2 * (tp - 1)) / tp) * perToken) / (nvls ? nvls.busBytesPerSec : gpu.interconnectBytesPerSec * ring.efficiency) : 0,
    perStepRingS: ringMinTokens > 0 ? calls * (nvls ? nvls.latencyS : ringCallLatencyS(tp, link)) : 0,
    ring,
    ...(nvls ? { nvls } : {}),
    algorithm,
    link: group,
  };
}

/**
 * All-reduces per forward pass under tensor parallelism ({@link allReduceWork}): one per layer
 * with a mixer (attention, or a Mamba / linear-attention mixer: every layer but Nemotron-H's
 * MLP-only blocks, whose layer type is 'linear' without a Mamba mixer), one per layer with an MLP
 * or MoE block (ModelSpec.mlpLayers; absent: every layer), and the input embedding's where
 * `withEmbedding` (the first pipeline stage). Llama-3.1-70B: 80 + 80 + 1 = 161.
 */
export function tpAllReduceCalls(m: Pick<ModelSpec, 'numLayers' | 'layerTypes' | 'mamba' | 'mlpLayers'>, withEmbedding = true): number {
  const mixers = m.mamba ? m.layerTypes.filter((t) => t !== 'linear').length + m.mamba.layers.length : m.numLayers;
  const mlps = m.mlpLayers ? m.mlpLayers.filter(Boolean).length : m.numLayers;
  return mixers + mlps + (withEmbedding ? 1 : 0);
}

/**
 * FLOPs per query-key pair and attention head (q·k and P·V, 2 FLOPs per multiply-add each) of a
 * prefill chunk's queries and of a decode query. Standard attention: 4 · head_dim for both.
 * MLA (DeepSeek-V2/V3, Kimi K2; ModelSpec.mla) runs two ways in vLLM (vllm/v1/attention/backends/mla/common.py,
 * its docstring and MLACommonImpl.forward): prefill and chunked context in the non-absorbed form,
 * multi-head attention with q·k over qk_nope_head_dim + qk_rope_head_dim and P·V over v_head_dim
 * (DeepSeek-V3: 2 · (128 + 64) + 2 · 128 = 640); decode (query_len <= reorder_batch_threshold,
 * 1 without speculative decoding) in the absorbed form, an MQA over the latent with q·k over
 * kv_lora_rank + qk_rope_head_dim and P·V over kv_lora_rank (2 · (512 + 64) + 2 · 512 = 2,176).
 * The absorbed decode's per-token projections (q_nope · W_UK_T into the latent, the latent output
 * · W_UV to v_head_dim: 2 · kv_lora_rank · H · (qk_nope_head_dim + v_head_dim) FLOPs per token and
 * layer) are kv_b_proj's FLOPs, which the prefill runs on each new token instead: both are in
 * 2 · P · T, P holding kv_b_proj (at F for decode tokens of a W8A8 checkpoint: StepWork
 * perDecodeTokenS). The prefill's up-projection of its cached context through kv_b_proj is per
 * context token, not per pair: {@link mlaContextFlops}.
 */
export function pairFlopsPerHead(m: Pick<ModelSpec, 'headDim' | 'mla'>): { prefill: number; decode: number } {
  if (!m.mla) return { prefill: 4 * m.headDim, decode: 4 * m.headDim };
  const { kvLoraRank, qkNopeHeadDim, qkRopeHeadDim, vHeadDim } = m.mla;
  return { prefill: 2 * (qkNopeHeadDim + qkRopeHeadDim) + 2 * vHeadDim, decode: 2 * (kvLoraRank + qkRopeHeadDim) + 2 * kvLoraRank };
}

/**
 * MLA: FLOPs per context token of a prefill chunk, all layers, all GPUs together (divide by tp for
 * one GPU's: kv_b_proj is a ColumnParallelLinear over the heads): 2 · kv_lora_rank · H ·
 * (qk_nope_head_dim + v_head_dim) per MLA layer, kv_b_proj's parameters ({@link mlaKvBProjParams})
 * times 2; DeepSeek-V3: 2 · 512 · 128 · 256 = 33,554,432 per layer, 61 layers. vLLM's prefill path
 * (vllm/model_executor/layers/attention/mla_attention.py, MLACommonImpl.forward_mha and
 * _compute_prefill_context; vllm/v1/attention/backends/mla/common.py before the move) attends a
 * chunk's context in the non-absorbed form: for every request with context_lens > 0 among the
 * prefills (query_len > reorder_batch_threshold, 1 without speculative decoding) it gathers the
 * context's latent from the cache and runs `self.kv_b_proj(kv_c_normed)` over it to k_nope and v.
 * The context is cut into pieces of chunked_prefill_workspace_size / (prefills with context)
 * tokens (the workspace: min(max(8 · max_model_len, 4 · max_num_seqs · block_size), 64 Ki), at
 * least max_num_seqs · block_size), but the pieces cover each context token once: the FLOPs do
 * not depend on it. Decode tokens (forward_mqa) read the latent directly and up-project nothing.
 * 0 without MLA.
 */
export function mlaContextFlops(m: ModelSpec): number {
  return 2 * mlaKvBProjParams(m).params;
}

/**
 * MLA: bytes per GPU one context token of a prefill chunk moves through HBM beyond the read of its
 * latent from the KV cache (the KV term counts that), all MLA layers, as vLLM's
 * _compute_prefill_context (vllm/model_executor/layers/attention/mla_attention.py) runs each piece,
 * kernel by kernel, per layer, in the model dtype's b bytes (the workspace is dequantized):
 *   gather_and_maybe_dequant_cache writes the latent and k_pe to the workspace    (L + R) · b
 *   kv_b_proj reads kv_c_normed, writes kv_nope [toks, H/tp, P + V]                L · b + H/tp · (P + V) · b
 *   _concat_k_nope_k_pe reads k_nope and k_pe, writes k [toks, H/tp, P + R]        H/tp · P · b + R · b + H/tp · (P + R) · b
 *   run_prefill_context_chunk (flash attention) reads k and v                       H/tp · (P + R + V) · b
 * = b · (2 · (L + R) + H/tp · (4P + 2R + 2V)) per layer, L = kv_lora_rank, R = qk_rope_head_dim,
 * P = qk_nope_head_dim, V = v_head_dim, H = num_attention_heads. The attention kernel is taken to
 * read k and v once (one query tile per head: a chunk of at most 128 new tokens; a longer one
 * re-reads them per tile, partly from L2, not modelled). DeepSeek-V3 bf16 at tp 8: 2 · (2 · 576 +
 * 16 · 896) = 30,976 B a layer, 61 layers: 1,889,536 B, 27x its latent's 70,272 B. The piece size
 * (the workspace) does not change it: the pieces cover each context token once. 0 without MLA.
 */
export function mlaContextKvBytes(m: ModelSpec, dtype: Dtype, tensorParallelSize: number): number {
  const mla = m.mla;
  if (!mla) return 0;
  const L = mla.kvLoraRank, R = mla.qkRopeHeadDim, P = mla.qkNopeHeadDim, V = mla.vHeadDim;
  const heads = m.numHeads / tensorParallelSize;
  return attentionLayerTypes(m).full * dtypeBytes(dtype) * (2 * (L + R) + heads * (4 * P + 2 * R + 2 * V));
}

/**
 * The W8A8 MLA clause: why decode tokens run kv_b_proj at the dtype's peak (vLLM keeps bf16 copies
 * of its halves W_UK_T and W_UV for the absorbed decode's bmm's: "we currently do not have quantized
 * bmm's", mla_attention.py process_weights_after_loading; ROCm's aiter fp8 bmm aside, no GPU of
 * core/estimate/gpus.ts). Prefill tokens and context tokens run kv_b_proj as the layer itself, its
 * quantized GEMM.
 */
const mlaDecodeBmmNote = "vLLM's absorbed decode multiplies by bf16 copies of kv_b_proj's halves W_UK_T and W_UV (\"we currently do not have quantized bmm's\")";

/**
 * lm_head's parameters, vocab_size · hidden_size: the tied embedding matrix too, which
 * paramsActiveCompute counts as lm_head (core/estimate paramCounts); 0 for an encoder (no lm_head).
 */
export function lmHeadParams(m: Pick<ModelSpec, 'isEncoder' | 'vocabSize' | 'hiddenSize'>): number {
  return m.isEncoder ? 0 : m.vocabSize * m.hiddenSize;
}

/** The GPU the profile names or describes (device.gpu, gpus.ts deviceGpu), else {@link DEFAULT_GPU}. @throws RangeError for a name not in the table. */
export function profileGpu(profile: Profile): GpuSpec {
  const gpu = profile.device.gpu === undefined ? gpuByName(DEFAULT_GPU) : deviceGpu(profile.device);
  if (!gpu) throw new RangeError(`device.gpu '${profile.device.gpu}' is not one of ${GPUS.map((g) => g.name).join(', ')}`);
  return gpu;
}

/**
 * Bytes of the embedding tables a step reads one row of per token, not whole (every GPU
 * together; VocabParallelEmbedding splits them over tp as weightsBytesPerGpu does): the input
 * embedding (vocab_size · hidden_size, with mllama's 8 extra rows), position and token-type
 * embeddings, Gemma 3n's per-layer embedding, in the model dtype (never quantized). A tied
 * embedding stays (`tiedReadAsLmHead`): it is read whole as lm_head, but not on the first of
 * several pipeline stages, whose table only looks up (the last stage holds lm_head's copy). Llama-3.1-8B bf16: 128,256 · 4,096 · 2 =
 * 1,050,673,152 B (its decode step reads 14.96 GiB of weights less these, 6.5 % less).
 */
export function lookupTableBytes(m: ModelSpec, dtype: Dtype, tiedReadAsLmHead = true): number {
  const b = paramCounts(m).breakdown;
  const tied = tiedReadAsLmHead && !m.isEncoder && m.tieWordEmbeddings ? m.vocabSize * m.hiddenSize : 0;
  return (b.embedding - tied) * dtypeBytes(dtype);
}

/**
 * The profile's model on its GPU at 100% of both peaks. Under pipeline parallelism
 * (device.pipeline_parallel_size > 1), `stage` (a 0-based pp rank) gives that stage's layers only:
 * its weights per GPU (estimate's stage figures: the first stage with the embedding, the last with
 * the final norm and lm_head), its layers' KV and FLOPs, and lm_head's logits on the last stage
 * alone; without `stage`, the sum of the stages' (every weight read once, every layer's work).
 */
export function stepWork(profile: Profile, stage?: number): StepWork {
  const est = estimate(profile);
  const stages = est.pipeline?.stages;
  if (stages && stage === undefined) {
    // The sum over the stages, each figure a sum of the stages' (the window and expert counts are the model's).
    const works = stages.map((_, k) => stepWork(profile, k));
    const sum = (key: StageCoefficientKey) => works.reduce((a, w) => a + w[key], 0);
    return { ...works[0], ...Object.fromEntries(STAGE_WORK_KEYS.map((key) => [key, sum(key)])) };
  }
  const gpu = profileGpu(profile);
  const range = stages && stage !== undefined ? stages[stage] : undefined;
  if (stages && (!range || !Number.isInteger(stage))) throw new RangeError(`stage must be an integer from 0 to ${stages.length - 1}, got ${stage}`);
  const m = range ? stageModel(profile.model, range.start, range.end) : profile.model;
  const lastStage = !stages || stage === stages.length - 1;
  // Weights kept in CPU memory (device.cpu_offload_gb) cross the host link every forward pass
  // (hostReadS) and are read again from the GPU's memory where vLLM copies them there (before the
  // UVA offloader, functional_call's .to(device)): weightsS reads them with the rest.
  const offloaded = (range ? range.cpuOffloadBytesPerGpu : est.cpuOffloadBytesPerGpu) ?? 0;
  const weightsPerGpu = (range ? range.weightsBytesPerGpu : est.weightsBytesPerGpu) + offloaded;
  const lookup = !range ? lookupTableBytes(profile.model, profile.dtype) : stage === 0 ? lookupTableBytes(profile.model, profile.dtype, false) : 0;
  const tp = profile.device.tensorParallelSize;
  const expertBytes = routedExpertBytes(m, profile.dtype);
  const layers = attentionLayerTypes(m);
  const chunked = layers.sliding > 0 && isChunkedLocalAttention(m);
  const peak = computePeak(gpu, profile.dtype);
  const perHead = pairFlopsPerHead(m);
  const pairS = (flops: number) => (m.numHeads * flops) / tp / peak.flopsPerSec;
  const q = quantizedGemmPeak(gpu, m.quantization?.activations);
  const quantizedParams = q.peak ? quantizedActiveComputeParams(m, paramCounts(m)) : 0;
  const gemm = q.peak ? { peak: q.peak, params: quantizedParams / tp } : null;
  const lmHead = lmHeadParams(m);
  // MLA's kv_b_proj, all layers: of it, the quantized part runs at F_q in prefill (the layer's own
  // GEMM) but at F in decode (the bf16 bmm's): mlaContextFlops, mlaDecodeBmmNote.
  const kvB = mlaKvBProjParams(m);
  const kvBQuantized = gemm ? kvB.quantized : 0;
  // A quantized kv_b_proj and its 16-bit copies, per GPU (both 0 otherwise): each read only by the
  // steps whose tokens use it (decodeWeightsS, prefillWeightsS).
  const decodeCopies = mlaDecodeCopies(m, profile.dtype, tp).bytesPerGpu;
  const prefillKvB = decodeCopies > 0 ? kvB.quantizedBytes / tp : 0;
  const perTokenS = (2 * ((range ? paramCounts(m).activeCompute : est.paramsActiveCompute) - lmHead - quantizedParams)) / tp / peak.flopsPerSec + (gemm ? (2 * gemm.params) / gemm.peak.flopsPerSec : 0);
  const allReduce = allReduceWork(m, gpu, profile.dtype, tp, !range || stage === 0, profileAllReduceLink(profile));
  return {
    gpu,
    peak,
    gemm,
    ...(q.note ? { gemmNote: q.note } : {}),
    // Per GPU: the split weights / tp plus what vLLM replicates (estimate weightsBytesPerGpu), less
    // the routed experts' share and the lookup tables a step reads a row of per token (under pp on
    // the first stage only, where the whole embedding only looks up). An MLA checkpoint with a
    // quantized kv_b_proj holds it twice (core/estimate mlaDecodeCopies): decode tokens read the
    // 16-bit copies W_UK_T / W_UV (decodeWeightsS), prefill chunks the quantized layer
    // (prefillWeightsS), each out of weightsS and charged only to a step that has such tokens; a step
    // of the chunked-prefill scheduler, prefill chunks beside the running decodes, reads both.
    weightsS: (weightsPerGpu - expertBytes / tp - lookup / tp - decodeCopies - prefillKvB) / gpu.memoryBytesPerSec,
    decodeWeightsS: decodeCopies / gpu.memoryBytesPerSec,
    prefillWeightsS: prefillKvB / gpu.memoryBytesPerSec,
    hostReadS: offloaded / hostLinkBytesPerSec(gpu),
    expertWeightsS: expertBytes / tp / gpu.memoryBytesPerSec,
    numExperts: expertBytes > 0 ? m.moe!.numExperts : 0,
    numExpertsPerTok: expertBytes > 0 ? m.moe!.numExpertsPerTok : 0,
    perKvTokenS: (layers.full * est.kvBytesPerTokenPerLayer) / gpu.memoryBytesPerSec,
    perTokenS,
    perDecodeTokenS: gemm ? perTokenS + ((2 * kvBQuantized) / tp) * (1 / peak.flopsPerSec - 1 / gemm.peak.flopsPerSec) : perTokenS,
    perPrefillContextTokenS: (2 * (kvB.params - kvBQuantized)) / tp / peak.flopsPerSec + (gemm ? (2 * kvBQuantized) / tp / gemm.peak.flopsPerSec : 0),
    perPrefillContextKvS: mlaContextKvBytes(m, profile.dtype, tp) / gpu.memoryBytesPerSec,
    // ParallelLMHead splits the vocabulary over the tp GPUs; an fp32 lm_head (MiniMax's
    // `lm_head.float()`, fed `hidden_states.float()`) runs at the fp32 peak. Under pipeline
    // parallelism on the last stage only (it holds lm_head).
    perLogitsS: lastStage ? (2 * lmHead) / tp / (m.fp32Weights?.lmHead ? computePeak(gpu, 'fp32') : peak).flopsPerSec : 0,
    perPairS: layers.full * pairS(perHead.prefill),
    perDecodePairS: layers.full * pairS(perHead.decode),
    slidingWindow: chunked ? 0 : layers.window,
    attentionChunkSize: chunked ? layers.window : 0,
    perSlidingKvTokenS: (layers.sliding * est.kvBytesPerTokenPerLayer) / gpu.memoryBytesPerSec,
    // No family has MLA sliding-window layers: their pairs cost 4 · D, prefill or decode.
    perSlidingPairS: layers.sliding * pairS(4 * m.headDim),
    // The stage's own recurrent-state layers (stageModel keeps the Mamba layers in its range).
    perRequestStateS: (2 * mambaStateBytesPerSequence(m, profile.dtype, tp)) / gpu.memoryBytesPerSec,
    allReduceS: allReduce.perStepS,
    perTokenAllReduceS: allReduce.perTokenS,
    perTokenOneShotAllReduceS: allReduce.perTokenOneShotS,
    oneShotAllReduceTokens: allReduce.oneShotTokens,
    perTokenMultimemAllReduceS: allReduce.perTokenMultimemS,
    multimemAllReduceMinTokens: allReduce.multimemMinTokens,
    multimemAllReduceMaxTokens: allReduce.multimemMaxTokens,
    perTokenRingAllReduceS: allReduce.perTokenRingS,
    ringAllReduceMinTokens: allReduce.ringMinTokens,
    ringAllReduceS: allReduce.perStepRingS,
  };
}

/** The StepWork figures that are per stage (seconds per unit); the rest are the model's. */
const STAGE_WORK_KEYS = ['weightsS', 'hostReadS', 'decodeWeightsS', 'prefillWeightsS', 'expertWeightsS', 'perKvTokenS', 'perTokenS', 'perDecodeTokenS', 'perPrefillContextTokenS', 'perPrefillContextKvS', 'perLogitsS', 'perPairS', 'perDecodePairS', 'perSlidingKvTokenS', 'perSlidingPairS', 'perRequestStateS',
  'allReduceS', 'perTokenAllReduceS', 'perTokenOneShotAllReduceS', 'perTokenMultimemAllReduceS', 'perTokenRingAllReduceS', 'ringAllReduceS'] as const;
type StageCoefficientKey = (typeof STAGE_WORK_KEYS)[number];

/**
 * The bandwidth assumed for the link between two pipeline stages on different nodes, bytes/s per
 * GPU: 50 GB/s, one 400 Gb/s InfiniBand NDR port per GPU (an assumption, not a measurement).
 */
export const PIPELINE_LINK_BYTES_PER_S = 50e9;

/**
 * The link a pipeline stage sends its hidden states over, bytes/s per GPU, and its words: the
 * GPUs' own interconnect (GpuSpec.interconnectBytesPerSec at the two-shot / ring efficiency, {@link profileAllReduceLink},
 * NCCL's send / recv between peers) where all tp · pp GPUs fit one node (NODE_GPUS, 8), else
 * {@link PIPELINE_LINK_BYTES_PER_S} between nodes. An assumption on the placement: a deployment
 * that spreads fewer than 8 GPUs over nodes has the slower link.
 */
export function pipelineLink(profile: Profile, gpu: GpuSpec = profileGpu(profile)): { bytesPerSec: number; name: string } {
  const gpus = profile.device.tensorParallelSize * (profile.device.pipelineParallelSize ?? 1);
  const efficiency = profileAllReduceLink(profile).efficiency.twoShot;
  // Point to point: one peer (an Infinity Fabric mesh's one link; bridged pairs past a pair: PCIe).
  const own = tpGroupLink(gpu, gpus, 1);
  return gpus <= NODE_GPUS
    ? { bytesPerSec: own.bytesPerSec * efficiency, name: `${own.interconnect} ${formatRate(own.bytesPerSec, 'B/s')} per direction at ${formatSignificant(efficiency)} of it (tp × pp = ${gpus} GPUs, taken as one node)` }
    : { bytesPerSec: PIPELINE_LINK_BYTES_PER_S, name: `an assumed ${formatRate(PIPELINE_LINK_BYTES_PER_S, 'B/s')} per GPU (one 400 Gb/s InfiniBand port; tp × pp = ${gpus} GPUs span nodes)` };
}

/**
 * Seconds one stage boundary costs per scheduled token, modelled: the send of the token's hidden
 * state, 2 · hidden_size · bytes(dtype) / tp over {@link pipelineLink}, and, under tensor
 * parallelism, the receiving stage's all-gather of it, 2 · (tp − 1)/tp · hidden_size · bytes(dtype)
 * into each GPU over the interconnect at the two-shot / ring efficiency ({@link profileAllReduceLink}). vLLM passes
 * IntermediateTensors {hidden_states, residual} (hidden_size each per token, the Llama-family
 * layout) with get_pp_group().send_tensor_dict(..., all_gather_group=get_tp_group())
 * (vllm/v1/worker/gpu_model_runner.py; vllm/distributed/parallel_state.py send_tensor_dict /
 * recv_tensor_dict): each of the tp GPUs sends its 1/tp slice and the receiving stage's GPUs
 * all-gather the slices (NCCL: (tp − 1)/tp of each tensor in per GPU). The two all-gathers'
 * per-call latency is not charged. Llama-3.1-70B bf16 at tp 4 × pp 2 on H100 SXM (one node): send
 * 2 · 8,192 · 2 / 4 = 8,192 B and all-gather 2 · 3/4 · 16,384 = 24,576 B a token, both at 450e9 ·
 * 0.5 = 225e9 B/s: 36.41 + 109.23 = 145.6 ns.
 */
export function stageSendPerTokenS(profile: Profile): number {
  const gpu = profileGpu(profile);
  const tp = profile.device.tensorParallelSize;
  const bytes = 2 * profile.model.hiddenSize * dtypeBytes(profile.dtype);
  const gather = tp > 1 ? (bytes * (tp - 1)) / tp / (tpGroupLink(gpu, tp).bytesPerSec * profileAllReduceLink(profile).efficiency.twoShot) : 0;
  return bytes / tp / pipelineLink(profile, gpu).bytesPerSec + gather;
}

/**
 * The model's coefficients for `profile` with efficiencies from `spec` (default: the profile's
 * step_time), each missing one from {@link ASSUMED_STEP_TIME} and listed in `assumed`.
 * @param how the source's wording for the efficiencies' origin (e.g. "calibrated from bench.json").
 */
export function stepTimeModel(profile: Profile, spec: StepTimeSpec | undefined = profile.stepTime, how = 'the profile'): StepTimeModel {
  const w = stepWork(profile);
  const factors = Object.keys(ASSUMED_STEP_TIME) as Array<keyof StepTimeFactors>;
  const assumed = factors.filter((k) => spec?.[k] === undefined);
  const e = { ...ASSUMED_STEP_TIME, ...Object.fromEntries(factors.filter((k) => spec?.[k] !== undefined).map((k) => [k, spec![k]])) } as Required<StepTimeFactors>;
  const byName: Record<keyof StepTimeFactors, string> = { computeEfficiency: 'compute_efficiency', memoryEfficiency: 'memory_efficiency', overheadMs: 'overhead_ms' };
  // The all-reduce figures this model uses that the profile's step_time.all_reduce leaves out (they are the profile's
  // alone: a calibration does not fit them); the pipeline's send and all-gather use two-shot's.
  const link = profileAllReduceLink(profile);
  const pp = estimate(profile).pipeline?.stages.length ?? 1;
  const used = [
    ...(w.allReduceS > 0 ? ['latency_us'] : []),
    ...(w.allReduceS > 0 || pp > 1 ? ['efficiency.two_shot'] : []),
    ...(w.perTokenOneShotAllReduceS > 0 ? ['efficiency.one_shot'] : []),
    ...(w.perTokenMultimemAllReduceS > 0 ? ['efficiency.multimem'] : []),
  ];
  const allReduceAssumed = used.filter((k) => !link.given.includes(k)).map((k) => `all_reduce.${k}`);
  // A GPU the profile did not name is said to be the default: this line is where that is said (no profile diagnostic warns of it).
  const on = `${profile.model.modelType} on ${gpuLabel(w.gpu)}${profile.device.gpu === undefined ? ' (device.gpu not set: the default)' : ''}`;
  const parts = [
    // The figures the model divides by, as used (dense bf16: the H100's datasheet prints twice it, with sparsity), then where they are copied from.
    w.peak.name !== 'fp32 peak'
      ? `${on}: ${w.peak.name.replace(' peak', '')} ${formatRate(w.peak.flopsPerSec, 'FLOP/s')} dense, memory ${formatRate(w.gpu.memoryBytesPerSec, 'B/s')}, from the ${w.peak.source}`
      : `${on}: dtype fp32 at fp32 ${formatRate(w.peak.flopsPerSec, 'FLOP/s')} (${w.peak.source}), memory ${formatRate(w.gpu.memoryBytesPerSec, 'B/s')} (${w.gpu.source})`,
    ...gemmLine(profile, w),
    // Calibrated values are least-squares floats: three significant digits, as core/format writes figures.
    `step = ${e.overheadMs > 0 ? `${formatSignificant(e.overheadMs)} ms + ` : ''}max(weights + KV${w.perRequestStateS > 0 ? ' + recurrent state' : ''} read at ${formatSignificant(e.memoryEfficiency)} × bandwidth, FLOPs at ${formatSignificant(e.computeEfficiency)} × ${w.gemm ? `the ${w.gemm.peak.name.replace(' peak', '')} / ${w.peak.name.replace(' peak', '')} peaks` : w.peak.name})${w.allReduceS > 0 ? ' + the tensor-parallel all-reduces' : ''}`,
    ...(w.perLogitsS > 0
      ? [`lm_head (vocab_size ${profile.model.vocabSize.toLocaleString('en-US')} × hidden_size ${profile.model.hiddenSize.toLocaleString('en-US')})${profile.model.fp32Weights?.lmHead ? ` in fp32 at ${formatRate(computePeak(w.gpu, 'fp32').flopsPerSec, 'FLOP/s')} (vLLM's minimax_text_01.py lm_head.float())` : ''} once per request scheduled in a step, not per token: vLLM computes logits only at each request's last scheduled token`]
      : []),
    ...(w.numExperts > 0
      ? [`MoE: routed experts' weights read per step modelled as the E · (1 − (1 − k/E)^n) of E = ${w.numExperts} experts per layer that n tokens touch at k = ${w.numExpertsPerTok} each, assuming uniform routing (a skewed router touches fewer); shared experts and the dense part read every step`]
      : []),
    ...offloadLine(profile, w),
    ...attentionCount(profile, w, e.memoryEfficiency),
    ...stateLine(profile, w, e.memoryEfficiency),
    ...mlaLine(profile, w),
    ...allReduceLine(profile, w),
    ...pipelineLine(profile),
    assumed.length + allReduceAssumed.length > 0 ? `assumed: ${[...assumed.map((k) => byName[k]), ...allReduceAssumed].join(', ')}; the rest from ${how}` : `efficiencies from ${how}`,
  ];
  const mla = Boolean(profile.model.mla);
  const stages: StageStepTime[] = [];
  for (let k = 0; k < (pp > 1 ? pp : 0); k++) stages.push(scaledCoefficients(stepWork(profile, k), e, mla));
  // The top level leaves out the fields its model lacks (absent reads as none, as in runs saved before them).
  const { expertWeightsS, perDecodePairS, perSlidingKvTokenS, perSlidingPairS, ...common } = scaledCoefficients(w, e, mla);
  return {
    ...common,
    ...(w.numExperts > 0 ? { expertWeightsS, numExperts: w.numExperts, numExpertsPerTok: w.numExpertsPerTok } : {}),
    ...(mla ? { perDecodePairS } : {}),
    ...(w.slidingWindow > 0 || w.attentionChunkSize > 0
      ? { ...(w.slidingWindow > 0 ? { slidingWindow: w.slidingWindow } : { attentionChunkSize: w.attentionChunkSize }), perSlidingKvTokenS, perSlidingPairS }
      : {}),
    gpu: gpuLabel(w.gpu),
    gpuFigures: gpuFigures(w, profile.device.tensorParallelSize),
    computeEfficiency: e.computeEfficiency,
    memoryEfficiency: e.memoryEfficiency,
    assumed: [...assumed.map((k) => byName[k]), ...allReduceAssumed],
    ...(stages.length > 0 ? { stages, stageSendPerTokenS: stageSendPerTokenS(profile) } : {}),
    ...(profile.device.tensorParallelSize > 1 || stages.length > 0
      ? {
          unmodelled: [
            // FlashInfer is CUDA's alone: on ROCm only the logits' all-gather is left out (s44 newcomer L9).
            ...(profile.device.tensorParallelSize > 1 ? [w.gpu.platform === 'rocm' ? 'the logits\' all-gather over the tensor-parallel GPUs' : 'FlashInfer\'s all-reduce (+ RMSNorm fusion) where enabled and the logits\' all-gather over the tensor-parallel GPUs'] : []),
            ...(stages.length > 0 ? ['the pipeline send\'s per-call latency and a placement other than the assumed one (one node up to 8 GPUs)'] : []),
          ],
        }
      : {}),
    source: parts.join('; '),
  };
}

/**
 * The GPU figures `w`'s coefficients divide by (its GPU's bandwidth, the compute peak of the
 * profile's dtype, a W8A8 checkpoint's GEMM peak, the interconnect as a tensor-parallel group of `tp` gets it, gpus.ts tpGroupLink), each with its origin: the
 * table's published figures ('datasheet'), a described GPU's keys ('user-given'), or a figure they
 * left out taken from another ('derived': GpuSpec.derived).
 */
export function gpuFigures(w: Pick<StepWork, 'gpu' | 'peak' | 'gemm'>, tp = 1): GpuFigures {
  const { gpu, peak, gemm } = w;
  const link = tpGroupLink(gpu, tp);
  const origin = (figure?: 'fp32' | 'int8' | 'interconnect'): GpuFigureOrigin => (!gpu.userGiven ? 'datasheet' : figure !== undefined && gpu.derived?.includes(figure) ? 'derived' : 'user-given');
  const peakFigure = (p: ComputePeak) => (p.name === 'fp32 peak' ? 'fp32' : p.name === 'int8 peak' ? 'int8' : undefined);
  return {
    memoryBytesPerSec: gpu.memoryBytesPerSec,
    memoryOrigin: origin(),
    computeFlopsPerSec: peak.flopsPerSec,
    computePeak: peak.name,
    computeOrigin: origin(peakFigure(peak)),
    ...(gemm ? { gemmFlopsPerSec: gemm.peak.flopsPerSec, gemmPeak: gemm.peak.name, gemmOrigin: origin(peakFigure(gemm.peak)) } : {}),
    interconnect: link.interconnect,
    interconnectBytesPerSec: link.bytesPerSec,
    interconnectOrigin: origin('interconnect'),
    source: gemm ? `${peak.source}; ${gemm.peak.name}: ${gemm.peak.source}` : peak.source,
    interconnectSource: link.source,
  };
}

/**
 * The coefficients of `w` at the efficiencies `e`, seconds per unit (a memory term / memory_efficiency,
 * a compute term / compute_efficiency), in a pipeline stage's form: every per-stage field, a model
 * without MLA's perDecodePairS = perPairS, the optional ones only where they are not 0 (perDecodeTokenS:
 * where it is not perTokenS). stepTimeModel's top level is the same less the fields its model lacks.
 */
function scaledCoefficients(w: StepWork, e: Required<StepTimeFactors>, mla: boolean): StageStepTime {
  const mem = (s: number) => s / e.memoryEfficiency;
  const comp = (s: number) => s / e.computeEfficiency;
  return {
    perStepS: e.overheadMs / 1000,
    weightsS: mem(w.weightsS) + w.hostReadS,
    ...(w.decodeWeightsS > 0 || w.prefillWeightsS > 0 ? { decodeWeightsS: mem(w.decodeWeightsS), prefillWeightsS: mem(w.prefillWeightsS) } : {}),
    expertWeightsS: mem(w.expertWeightsS),
    perKvTokenS: mem(w.perKvTokenS),
    perTokenS: comp(w.perTokenS),
    ...(w.perDecodeTokenS !== w.perTokenS ? { perDecodeTokenS: comp(w.perDecodeTokenS) } : {}),
    ...(w.perPrefillContextTokenS > 0 ? { perPrefillContextTokenS: comp(w.perPrefillContextTokenS) } : {}),
    ...(w.perPrefillContextKvS > 0 ? { perPrefillContextKvS: mem(w.perPrefillContextKvS) } : {}),
    perLogitsS: comp(w.perLogitsS),
    perPairS: comp(w.perPairS),
    perDecodePairS: comp(mla ? w.perDecodePairS : w.perPairS),
    perSlidingKvTokenS: mem(w.perSlidingKvTokenS),
    perSlidingPairS: comp(w.perSlidingPairS),
    ...(w.perRequestStateS > 0 ? { perRequestStateS: mem(w.perRequestStateS) } : {}),
    // At the assumed link efficiency already (allReduceWork); absent at tp 1.
    ...(w.allReduceS > 0 ? { allReduceS: w.allReduceS, perTokenAllReduceS: w.perTokenAllReduceS } : {}),
    // The token bands are the model's; each stage carries them too, so that stepSeconds of a stage alone is its step.
    ...(w.perTokenOneShotAllReduceS > 0 ? { perTokenOneShotAllReduceS: w.perTokenOneShotAllReduceS, oneShotAllReduceTokens: w.oneShotAllReduceTokens } : {}),
    ...(w.perTokenMultimemAllReduceS > 0 ? { perTokenMultimemAllReduceS: w.perTokenMultimemAllReduceS, multimemAllReduceMinTokens: w.multimemAllReduceMinTokens, multimemAllReduceMaxTokens: w.multimemAllReduceMaxTokens } : {}),
    ...(w.ringAllReduceMinTokens > 0 ? { perTokenRingAllReduceS: w.perTokenRingAllReduceS, ringAllReduceMinTokens: w.ringAllReduceMinTokens, ringAllReduceS: w.ringAllReduceS } : {}),
  };
}

/**
 * The tensor-parallel clause of the printed line: the all-reduces a step issues, their bytes,
 * algorithm and link, charged serially ({@link allReduceWork}). Empty at tp 1.
 */
function allReduceLine(profile: Profile, w: StepWork): string[] {
  const tp = profile.device.tensorParallelSize;
  if (tp <= 1) return [];
  const l = profileAllReduceLink(profile);
  const a = allReduceWork(profile.model, w.gpu, profile.dtype, tp, true, l);
  const pp = (estimate(profile).pipeline?.size ?? 1) > 1;
  const link = `${a.link.interconnect} ${formatRate(a.link.bytesPerSec, 'B/s')} per direction (${a.link.source})`;
  // Where the efficiencies and latency come from: the profile's keys, else the H100 fit, which elsewhere is assumed.
  const fitted = `fitted to vLLM PR #24111's ${ALL_REDUCE_FITTED_ON} all-reduce timings${w.gpu.name === ALL_REDUCE_FITTED_ON && !w.gpu.userGiven ? '' : `, assumed on ${gpuLabel(w.gpu)}: set step_time.all_reduce to its own`}`;
  const source = l.given.length === 0 ? fitted : l.given.length === 4 ? 'step_time.all_reduce' : `step_time.all_reduce ${l.given.join(', ')}; the rest ${fitted}`;
  // PR #24111's timings span 0.5-4 MiB messages. NCCL's ring past them runs at its large-message bus bandwidth
  // (RING_FIT_MAX_BYTES, ALL_REDUCE_EFFICIENCY.ring); vLLM's own kernels below the ring band (custom two-shot to 8 MiB,
  // multimem / symmetric-memory two-shot to 32-128 MiB) keep the fit's efficiencies, extrapolated past 4 MiB.
  const fittedTokens = Math.floor(RING_FIT_MAX_BYTES / a.messageBytesPerToken);
  const n = (x: number) => x.toLocaleString('en-US');
  const ringLatency = `${formatSignificant(ringCallLatencyS(tp, l) * 1e6)} µs a call (${l.given.includes('latency_us') ? 'step_time.all_reduce latency_us' : `its 2 · (tp − 1) = ${2 * (tp - 1)} steps at ${formatSignificant(RING_STEP_LATENCY_S * 1e6)} µs, fitted to vLLM PR #24111's pynccl 37 µs at 4 MiB, TP 4`})`;
  // NVLS in place of the ring (nvlsAllReduce): NCCL's default on NVSwitch boards with multicast, at its measured busbw.
  const ring = a.ringMinTokens <= 0
    ? ''
    : a.nvls
      ? `; ${NVLS_TEXT} on messages past 4 MiB (from ${n(a.ringMinTokens)} tokens here), NCCL's default on this NVSwitch board at tp ${tp}, instead of its ring (modelled: NVLS at its peak bus bandwidth, ${formatRate(a.nvls.busBytesPerSec, 'B/s')}, over the ring's 2 · (tp − 1)/tp · M as the α-β model's β (${a.nvls.source}), plus ${a.nvls.latencyFrom === 'ring' ? `the ring's ${ringLatency}` : `${formatSignificant(a.nvls.latencyS * 1e6)} µs a call (${a.nvls.latencySource}${a.nvls.latencyFrom === 'latency_us' ? '' : `${tp === 8 ? '' : `, measured at tp 8, assumed at tp ${tp}`}; the bus bandwidth so ramps with size, ${formatRate(nvlsBusAt(a.nvls, tp, 16 * MiB), 'B/s')} at 16 MiB`})`})`
      : `; NCCL's ring on messages past 4 MiB (from ${n(a.ringMinTokens)} tokens here) at ${formatSignificant(a.ring.efficiency)} of it instead, its large-message bus bandwidth as the α-β model's β (${a.ring.source}), plus ${ringLatency}`;
  const extrapolated = a.ringMinTokens - 1 > fittedTokens
    ? `; vLLM's kernels' efficiencies were fitted at 0.5-4 MiB messages (up to ${n(fittedTokens)} tokens here) and are extrapolated above, to ${n(a.ringMinTokens - 1)} tokens`
    : '';
  return [`tensor parallel ${tp}: each GPU's share of weights, KV and FLOPs, then ${pp ? 'per stage its layers\' all-reduces (the first stage\'s with the embedding\'s' : `${a.calls} all-reduces a step (one after each layer's mixer and each MLP or MoE block, their row-parallel outputs, and one after the embedding`}), each of tokens × hidden_size ${profile.model.hiddenSize.toLocaleString('en-US')} × ${dtypeBytes(profile.dtype)} B = M, by ${a.algorithm}, over ${link} at ${formatSignificant(l.efficiency.oneShot)} of it one-shot, ${formatSignificant(l.efficiency.twoShot)} two-shot or ring${a.multimemMaxTokens > 0 ? `, ${formatSignificant(l.efficiency.multimem)} multimem` : ''}, plus ${formatSignificant(l.latencyS * 1e6)} µs a call (${source})${ring}; added after the max, not overlapped (vLLM runs them between the GEMMs)${extrapolated}`];
}

/**
 * The cpu_offload_gb clause of the printed line: the weights kept in CPU memory and what reading
 * them costs each step. Empty without offloading.
 */
function offloadLine(profile: Profile, w: StepWork): string[] {
  if (w.hostReadS <= 0) return [];
  const rate = hostLinkBytesPerSec(w.gpu);
  const bytes = w.hostReadS * rate;
  return [`cpu_offload_gb ${profile.device.cpuOffloadGib}: the ${formatBytes(bytes)} of weights per GPU kept in CPU memory${(estimate(profile).pipeline?.size ?? 1) > 1 ? ' (every stage\'s, summed)' : ''} cross the host link every step, ${formatSignificant(w.hostReadS * 1e3)} ms at an assumed ${formatRate(rate, 'B/s')} (a typical pinned-memory copy rate over PCIe Gen${w.gpu.pcieGen} x16, modelled), added to the weights' read; vLLM's maybe_offload_to_cpu streams them back each forward (UVA reads, or a copy before it)`];
}

/**
 * The pipeline clause of the printed line: how a batch's time is split over the stages and how the
 * hidden states' send is modelled. Empty at pipeline_parallel_size 1.
 */
function pipelineLine(profile: Profile): string[] {
  const pipe = estimate(profile).pipeline;
  if (!pipe) return [];
  const counts = pipe.stages.map((s) => s.end - s.start).join(' + ');
  return [`pipeline parallel ${pipe.size}: each stage runs a batch over its own layers (${counts}, vLLM get_pp_indices), its weights (the first with the embedding, the last with lm_head and the logits), KV and FLOPs, plus the send of each token's hidden states to the next stage, 2 · hidden_size · ${dtypeBytes(profile.dtype)} B / tp over ${pipelineLink(profile).name}${profile.device.tensorParallelSize > 1 ? ', and the receiving stage\'s all-gather of them over the tensor-parallel GPUs, 2 · (tp − 1)/tp · hidden_size · ' + dtypeBytes(profile.dtype) + ' B a GPU' : ''} (modelled); up to ${pipe.size} batches in flight (vLLM's batch queue), so one request's step takes the sum of the stages and the throughput is the slowest stage's`];
}

/**
 * The W8A8 clause of the printed line: which GEMMs run at the fp8 / int8 peak ("quantized linear
 * layers' GEMMs (W8A8, fp8 weights and activations) at fp8 1,979 TFLOP/s dense; attention, lm_head
 * and the rest at bf16"), or why they do not on this GPU. Empty for other checkpoints.
 */
function gemmLine(profile: Profile, w: StepWork): string[] {
  const q = profile.model.quantization;
  if (w.gemm) {
    const kind = w.gemm.peak.name.replace(' peak', '');
    return [`quantized linear layers' GEMMs (${q?.method} W8A8: ${kind} weights and activations, as vLLM runs them) at ${kind} ${formatRate(w.gemm.peak.flopsPerSec, kind === 'int8' ? 'OP/s' : 'FLOP/s')} dense (${w.gemm.peak.source}): ${formatSignificant(w.gemm.params * 1e-9)}B of the active parameters per GPU; attention and the unquantized layers (lm_head, routers) at the ${w.peak.name}`];
  }
  return w.gemmNote ? [`${q?.method} W8A8: ${w.gemmNote}`] : [];
}

/**
 * The MLA clause of the printed line: its two FLOPs per pair and head, as vLLM runs prefill and
 * decode ({@link pairFlopsPerHead}), the prefill's up-projection of its context
 * ({@link mlaContextFlops}) and, for a W8A8 checkpoint, decode's kv_b_proj at the dtype's peak.
 * Empty but for MLA.
 */
function mlaLine(profile: Profile, w: StepWork): string[] {
  const mla = profile.model.mla;
  if (!mla) return [];
  const f = pairFlopsPerHead(profile.model);
  const n = (x: number) => x.toLocaleString('en-US');
  const perLayer = 2 * mla.kvLoraRank * profile.model.numHeads * (mla.qkNopeHeadDim + mla.vHeadDim);
  const decodeBmm = w.perDecodeTokenS !== w.perTokenS
    ? `; decode tokens run kv_b_proj (${formatSignificant((mlaContextFlops(profile.model) / 2) * 1e-9)}B params) at the ${w.peak.name}, not the ${w.gemm?.peak.name}: ${mlaDecodeBmmNote}`
    : '';
  return [`MLA attention as vLLM runs it: prefill chunks at ${n(f.prefill)} FLOPs per query-key pair and head (q·k over qk_nope_head_dim + qk_rope_head_dim = ${n(mla.qkNopeHeadDim + mla.qkRopeHeadDim)}, P·V over v_head_dim ${n(mla.vHeadDim)}), decode tokens at ${n(f.decode)} (absorbed: q·k over kv_lora_rank + qk_rope_head_dim = ${n(mla.kvLoraRank + mla.qkRopeHeadDim)}, P·V over kv_lora_rank ${n(mla.kvLoraRank)}); a prefill chunk's context tokens (cached or earlier chunks) are up-projected through kv_b_proj again, ${n(perLayer)} FLOPs per token and layer (2 · kv_lora_rank · num_attention_heads · (qk_nope_head_dim + v_head_dim), vLLM's _compute_prefill_context), and its up-projected K and V written and read again, ${formatBytes(mlaContextKvBytes(profile.model, profile.dtype, profile.device.tensorParallelSize))} per context token${profile.device.tensorParallelSize > 1 ? ' per GPU' : ''} beside its latent's read (workspace, kv_b_proj output, k's concatenation, the attention's read)${decodeBmm}`];
}

/**
 * How the model counts the attention layers by type, for its printed line: full-attention
 * layers read the whole context's KV and attend every earlier token, sliding-window layers
 * min(context, window) tokens and the query-key pairs inside the window, chunked
 * local-attention layers (Llama 4) their own chunk's tokens so far, each with its ns per KV
 * token; linear-attention layers neither. Empty for a model whose attention layers are all full.
 */
function attentionCount(profile: Profile, w: StepWork, memoryEfficiency: number): string[] {
  const m = profile.model;
  const layers = attentionLayerTypes(m);
  const linear = m.layerTypes.filter((t) => t === 'linear').length;
  if (layers.sliding === 0 && linear === 0) return [];
  const ns = (s: number) => `${formatSignificant((s / memoryEfficiency) * 1e9)} ns/KV token`;
  const window = layers.window.toLocaleString('en-US');
  const parts = [
    ...(layers.full > 0 ? [`the ${layers.full} full-attention layers read the whole context (${ns(w.perKvTokenS)}) and attend every earlier token`] : []),
    ...(layers.sliding > 0 && w.attentionChunkSize > 0
      ? [`the ${layers.sliding} chunked local-attention layers read only their own ${window}-token chunk so far ((position mod ${window}) + 1 tokens per decode token, ${ns(w.perSlidingKvTokenS)}) and attend only the query-key pairs inside it`]
      : layers.sliding > 0 ? [`the ${layers.sliding} sliding-window layers read min(context, ${window}) tokens (${ns(w.perSlidingKvTokenS)}) and attend only the query-key pairs inside the window`] : []),
    ...(linear > 0 ? [`the ${linear} linear-attention layers keep a constant state: no KV read, no query-key pairs`] : []),
  ];
  // Joined by commas: the printed source separates its clauses by semicolons.
  return [`attention per layer type: ${parts.join(', ')}`];
}

/**
 * The recurrent-state clause of the printed line: the state one sequence keeps per GPU, which layers
 * keep it, and its read + write per request scheduled. Empty without recurrent-state layers.
 */
function stateLine(profile: Profile, w: StepWork, memoryEfficiency: number): string[] {
  const mamba = profile.model.mamba;
  if (!mamba || w.perRequestStateS === 0) return [];
  const bytes = mambaStateBytesPerSequence(profile.model, profile.dtype, profile.device.tensorParallelSize);
  const perGpu = profile.device.tensorParallelSize > 1 ? ' per GPU' : '';
  return [`recurrent state: the ${mamba.layers.length} ${mixerNames(mamba, profile.model.modelType).layer} layers keep ${formatBytes(bytes)} per sequence${perGpu} (the estimate's state per sequence), read and written once per request scheduled in a step, a decode token or a prefill chunk alike (${formatDuration((w.perRequestStateS / memoryEfficiency) * 1e9)} a request at ${formatSignificant(memoryEfficiency)} × bandwidth): ${recurrentStateNote}`];
}

/**
 * The expected share of the routed experts' weights a step of `tokens` tokens reads, assuming
 * uniform routing: each token picks k of E experts (per MoE layer), so an expert is missed by all
 * of them with probability (1 − k/E)^tokens and E · (1 − (1 − k/E)^tokens) are touched. 0 for a
 * dense model (numExperts 0 or absent). The same as native/src/pool/simulator.cc ExpertShareRead.
 */
export function expertShareRead(m: { numExperts?: number; numExpertsPerTok?: number }, tokens: number): number {
  const E = m.numExperts ?? 0;
  if (E <= 0 || tokens <= 0) return 0;
  return 1 - Math.pow(1 - (m.numExpertsPerTok ?? 0) / E, tokens);
}

/**
 * The fields of a StepTimeModel that set its step times (the rest describe them): what
 * {@link stepSeconds} reads, and what the serving simulator takes by the same names
 * (runner/simulate/simulate.ts; slidingWindow and attentionChunkSize as stepSlidingWindow and
 * stepAttentionChunkSize).
 */
export const STEP_COEFFICIENT_KEYS = ['perStepS', 'weightsS', 'decodeWeightsS', 'prefillWeightsS', 'perKvTokenS', 'perTokenS', 'perDecodeTokenS', 'perPrefillContextTokenS', 'perPrefillContextKvS', 'perLogitsS', 'perPairS',
  'perDecodePairS', 'expertWeightsS', 'numExperts', 'numExpertsPerTok', 'slidingWindow', 'attentionChunkSize', 'perSlidingKvTokenS', 'perSlidingPairS', 'perRequestStateS', 'allReduceS', 'perTokenAllReduceS',
  'perTokenOneShotAllReduceS', 'oneShotAllReduceTokens', 'perTokenMultimemAllReduceS', 'multimemAllReduceMinTokens', 'multimemAllReduceMaxTokens', 'perTokenRingAllReduceS', 'ringAllReduceMinTokens', 'ringAllReduceS'] as const satisfies ReadonlyArray<keyof StepTimeModel>;
export type StepCoefficientKey = (typeof STEP_COEFFICIENT_KEYS)[number];

/** The step-time coefficients {@link stepSeconds} reads. */
export type StepCoefficients = Pick<StepTimeModel, StepCoefficientKey>;

/**
 * Seconds of the weights a step of `tokens` tokens, `decodeTokens` of them one-token chunks, reads:
 * weightsS + expertWeightsS · expertShareRead + decodeWeightsS if it has a decode token +
 * prefillWeightsS if it has a prefill token (MLA W8A8's kv_b_proj copies and layer; absent: 0, all
 * in weightsS, for other models and runs saved before them).
 */
export function weightReadSeconds(m: Pick<StepCoefficients, 'weightsS' | 'decodeWeightsS' | 'prefillWeightsS' | 'expertWeightsS' | 'numExperts' | 'numExpertsPerTok'>, tokens: number, decodeTokens: number): number {
  return m.weightsS + (m.expertWeightsS ?? 0) * expertShareRead(m, tokens) + (decodeTokens > 0 ? m.decodeWeightsS ?? 0 : 0) + (tokens > decodeTokens ? m.prefillWeightsS ?? 0 : 0);
}

/**
 * What a step's queries attend, per layer type, as native/src/pool/simulator.cc sums it: the
 * full-attention layers' KV tokens read and query-key pairs (whole context), the latter apart for
 * prefill chunks' queries (pairs) and decode queries (decodePairs: one-token chunks, vLLM's MLA
 * decode path), and the sliding-window layers' (inside the window) or chunked layers' (inside
 * the query's chunk); and, for the MLA terms, the decode tokens (one-token chunks) and the
 * prefill chunks' context tokens (those computed before each chunk, which MLA up-projects again).
 */
export interface AttentionWork {
  kvTokens: number;
  pairs: number;
  decodePairs: number;
  slidingKvTokens: number;
  slidingPairs: number;
  decodeTokens: number;
  prefillContextTokens: number;
}

/**
 * Query-key pairs of the queries at positions [from, to) in a layer of window w tokens: the query
 * at position i attends min(i + 1, w) keys, so Σ = S(to) − S(from) with S(t) = t(t + 1)/2 for
 * t <= w, w(w + 1)/2 + (t − w) · w past it (derived in native/src/pool/simulator.h SlidingPairs;
 * the same formula).
 */
export function slidingPairs(from: number, to: number, w: number): number {
  const prefix = (t: number) => (t <= w ? (t * (t + 1)) / 2 : (w * (w + 1)) / 2 + (t - w) * w);
  return prefix(to) - prefix(from);
}

/**
 * Query-key pairs of the queries at positions [from, to) in a chunked local-attention layer of
 * chunk c tokens: the query at position i attends (i mod c) + 1 keys, so Σ = P(to) − P(from) with
 * P(t) = floor(t/c) · c(c + 1)/2 + r(r + 1)/2, r = t mod c (derived in native/src/pool/simulator.h
 * ChunkedPairs; the same formula).
 */
export function chunkedPairs(from: number, to: number, c: number): number {
  const prefix = (t: number) => {
    const r = t % c;
    return Math.floor(t / c) * ((c * (c + 1)) / 2) + (r * (r + 1)) / 2;
  };
  return prefix(to) - prefix(from);
}

/**
 * What one request's chunk of n query tokens attends when its context reaches `context` tokens
 * (the chunk's own included; n = 1 is a decode token), with sliding-window layers of `window`
 * tokens or chunked local-attention layers of `attentionChunk` tokens (0: none; at most one of
 * the two), as simulator.cc counts it: full layers read `context` KV tokens and attend
 * n · (context − n) + n(n + 1)/2 pairs (decodePairs for n = 1, else pairs; for n > 1 the
 * context − n tokens before the chunk are prefillContextTokens); sliding layers read min(context, n + window − 1) (the keys
 * any of its queries sees) and attend slidingPairs(context − n, context, window) pairs; chunked
 * layers read context − floor((context − n)/C)·C (the chunks its queries touch, from the first
 * one's start) and attend chunkedPairs(context − n, context, C) pairs.
 */
export function chunkAttention(n: number, context: number, window: number, attentionChunk = 0): AttentionWork {
  const local = window > 0
    ? { slidingKvTokens: Math.min(context, n + window - 1), slidingPairs: slidingPairs(context - n, context, window) }
    : attentionChunk > 0
      ? { slidingKvTokens: context - Math.floor((context - n) / attentionChunk) * attentionChunk, slidingPairs: chunkedPairs(context - n, context, attentionChunk) }
      : { slidingKvTokens: 0, slidingPairs: 0 };
  const pairs = n * (context - n) + (n * (n + 1)) / 2;
  const decode = n === 1;
  return { kvTokens: context, pairs: decode ? 0 : pairs, decodePairs: decode ? pairs : 0, ...local, decodeTokens: decode ? 1 : 0, prefillContextTokens: decode ? 0 : context - n };
}

/** Σ of attention works, each `count` times (e.g. a batch's decode tokens of one context). */
export function sumAttention(...works: Array<[AttentionWork, number]>): AttentionWork {
  const sum: AttentionWork = { kvTokens: 0, pairs: 0, decodePairs: 0, slidingKvTokens: 0, slidingPairs: 0, decodeTokens: 0, prefillContextTokens: 0 };
  for (const [w, count] of works) {
    sum.kvTokens += count * w.kvTokens;
    sum.pairs += count * w.pairs;
    sum.decodePairs += count * w.decodePairs;
    sum.slidingKvTokens += count * w.slidingKvTokens;
    sum.slidingPairs += count * w.slidingPairs;
    sum.decodeTokens += count * w.decodeTokens;
    sum.prefillContextTokens += count * w.prefillContextTokens;
  }
  return sum;
}

/**
 * Seconds of a step's KV reads: perKvTokenS · full layers' KV tokens + perSlidingKvTokenS · sliding
 * (or chunked) layers' + perPrefillContextKvS · prefill chunks' context tokens (MLA's up-projected
 * context K/V, {@link mlaContextKvBytes}; absent: none, for other models and runs saved before it).
 */
export function kvReadSeconds(m: Pick<StepCoefficients, 'perKvTokenS' | 'perSlidingKvTokenS' | 'perPrefillContextKvS'>, a: Pick<AttentionWork, 'kvTokens' | 'slidingKvTokens' | 'prefillContextTokens'>): number {
  return m.perKvTokenS * a.kvTokens + (m.perSlidingKvTokenS ?? 0) * a.slidingKvTokens + (m.perPrefillContextKvS ?? 0) * a.prefillContextTokens;
}

/**
 * Seconds of a step's recurrent-state traffic: perRequestStateS · `requests` scheduled (absent: no
 * recurrent-state layers, or a run saved before it: 0).
 */
export function stateSeconds(m: Pick<StepCoefficients, 'perRequestStateS'>, requests: number): number {
  return (m.perRequestStateS ?? 0) * requests;
}

/**
 * Seconds of a step's attention FLOPs: perPairS · full layers' prefill pairs + perDecodePairS ·
 * their decode pairs (perPairS when absent: no MLA, or a run saved before the split) +
 * perSlidingPairS · sliding (or chunked) layers'.
 */
export function pairSeconds(m: Pick<StepCoefficients, 'perPairS' | 'perDecodePairS' | 'perSlidingPairS'>, a: AttentionWork): number {
  return m.perPairS * a.pairs + (m.perDecodePairS ?? m.perPairS) * a.decodePairs + (m.perSlidingPairS ?? 0) * a.slidingPairs;
}

/**
 * Seconds of a step's GEMMs: perTokenS · `tokens` scheduled, of which perDecodeTokenS for the
 * a.decodeTokens one-token chunks (perTokenS when absent: all but an MLA W8A8 checkpoint, or a
 * run saved before it) + perLogitsS · `requests` scheduled (lm_head, one logits row each;
 * perLogitsS absent in a run saved before it, whose perTokenS holds lm_head) +
 * perPrefillContextTokenS · a.prefillContextTokens (MLA's kv_b_proj over the prefill chunks'
 * context; absent: none, for other models and runs saved before it).
 */
export function gemmSeconds(m: Pick<StepCoefficients, 'perTokenS' | 'perDecodeTokenS' | 'perPrefillContextTokenS' | 'perLogitsS'>, tokens: number, requests: number,
  a: Pick<AttentionWork, 'decodeTokens' | 'prefillContextTokens'>): number {
  return m.perTokenS * (tokens - a.decodeTokens) + (m.perDecodeTokenS ?? m.perTokenS) * a.decodeTokens + (m.perLogitsS ?? 0) * requests +
    (m.perPrefillContextTokenS ?? 0) * a.prefillContextTokens;
}

/**
 * Seconds of a step's tensor-parallel all-reduces ({@link allReduceWork}): allReduceS + `tokens` ·
 * perTokenOneShotAllReduceS where 0 < tokens <= oneShotAllReduceTokens (vLLM's one-shot kernel),
 * perTokenMultimemAllReduceS where multimemAllReduceMinTokens <= tokens <= multimemAllReduceMaxTokens
 * (the symmetric-memory multimem kernel), perTokenRingAllReduceS where tokens >= ringAllReduceMinTokens > 0
 * (NCCL's ring past the small-message fit, its latency ringAllReduceS in place of allReduceS), else
 * perTokenAllReduceS; 0 for a step of no tokens, as simulator.cc StepSeconds. Absent fields: 0 (tp
 * 1, or a run saved before them, which charged no all-reduce and replays so); ringAllReduceS absent:
 * allReduceS (a run saved before it).
 */
export function allReduceSeconds(m: Pick<StepCoefficients, 'allReduceS' | 'perTokenAllReduceS' | 'perTokenOneShotAllReduceS' | 'oneShotAllReduceTokens' | 'perTokenMultimemAllReduceS' | 'multimemAllReduceMinTokens' | 'multimemAllReduceMaxTokens' | 'perTokenRingAllReduceS' | 'ringAllReduceMinTokens' | 'ringAllReduceS'>, tokens: number): number {
  if (tokens <= 0) return 0;
  const ringFrom = m.ringAllReduceMinTokens ?? 0;
  const oneShot = tokens <= (m.oneShotAllReduceTokens ?? 0);
  const multimem = tokens >= (m.multimemAllReduceMinTokens ?? 0) && tokens <= (m.multimemAllReduceMaxTokens ?? 0);
  const ring = ringFrom > 0 && tokens >= ringFrom;
  const perToken = oneShot ? m.perTokenOneShotAllReduceS : multimem ? m.perTokenMultimemAllReduceS : ring ? m.perTokenRingAllReduceS : m.perTokenAllReduceS;
  // simulator.cc StepSeconds picks the band in the same order: the ring's latency only where its per-token rate applies.
  const latency = !oneShot && !multimem && ring ? (m.ringAllReduceS ?? m.allReduceS) : m.allReduceS;
  return (latency ?? 0) + tokens * (perToken ?? 0);
}

/**
 * One step's modelled seconds, the same formula as the simulator's (native/src/pool/simulator.h):
 * `tokens` scheduled for `requests` requests, and what they attend per layer type; the
 * tensor-parallel all-reduces after the max ({@link allReduceSeconds}).
 */
export function stepSeconds(m: StepCoefficients, tokens: number, requests: number, attention: AttentionWork): number {
  return m.perStepS + Math.max(weightReadSeconds(m, tokens, attention.decodeTokens) + kvReadSeconds(m, attention) + stateSeconds(m, requests), gemmSeconds(m, tokens, requests, attention) + pairSeconds(m, attention)) +
    allReduceSeconds(m, tokens);
}
