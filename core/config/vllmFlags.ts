/**
 * vLLM engine settings a profile may carry that the estimate does not model, by the name vLLM's
 * arguments give them (`vllm serve --swap-space` is swap_space), with where vLLM reads each and
 * what it would change. A profile key of one of these names, in any section, is a warning of its
 * own (code vllm-flag-not-modelled: core/config/profileSchema.ts), not "unknown key", so that a
 * user can tell an unmodelled flag from a typo; the editor's hover on the key shows the same
 * (server/hover.ts), and a sweep axis of one names it (core/config/sweep.ts).
 */

/** One vLLM setting the estimate leaves out. */
export interface UnmodelledVllmFlag {
  /** The argument's name as vLLM's EngineArgs spells it (and a profile key would). */
  key: string;
  /** The command-line flag. */
  flag: string;
  /** Where vLLM reads it: its config class and field. */
  where: string;
  /** What it would change in the figures, were it modelled. */
  effect: string;
}

/** The table: one row per setting (vllm/engine/arg_utils.py EngineArgs and the configs it builds). */
export const UNMODELLED_VLLM_FLAGS: readonly UnmodelledVllmFlag[] = [
  {
    key: 'speculative_config', flag: '--speculative-config', where: 'SpeculativeConfig (vllm/config/speculative.py)',
    effect: 'speculative decoding: the draft model\'s weights and its KV (an EAGLE head\'s layer takes blocks in the same pool) are not counted, and a decode step verifying k + 1 tokens is not timed',
  },
  {
    key: 'num_speculative_tokens', flag: '--speculative-config \'{"num_speculative_tokens": k}\'', where: 'SpeculativeConfig.num_speculative_tokens',
    effect: 'speculative decoding: the draft model\'s weights and KV are not counted, and a decode step verifying k + 1 tokens is not timed',
  },
  {
    key: 'swap_space', flag: '--swap-space', where: 'CacheConfig.swap_space',
    effect: 'none on the GPU pool: it is CPU memory (GiB per GPU) for swapped-out blocks (V0; V1 recomputes preempted requests instead)',
  },
  {
    key: 'enable_expert_parallel', flag: '--enable-expert-parallel', where: 'ParallelConfig.enable_expert_parallel',
    effect: 'MoE experts placed whole on GPUs instead of sliced by tensor parallelism: the same weights per GPU in total, but the experts\' divisibility checks and the all-to-all communication differ',
  },
  {
    key: 'calculate_kv_scales', flag: '--calculate-kv-scales', where: 'CacheConfig.calculate_kv_scales',
    effect: 'none on the estimate: fp8 KV scales computed from the first batch instead of 1.0; the pool is the same size',
  },
  {
    key: 'enable_chunked_prefill', flag: '--enable-chunked-prefill', where: 'SchedulerConfig.enable_chunked_prefill',
    effect: 'none on V1, which always chunks prefills at max_num_batched_tokens as the simulator does; only V0 ran without chunking',
  },
  {
    key: 'enforce_eager', flag: '--enforce-eager', where: 'ModelConfig.enforce_eager',
    effect: 'no CUDA graphs: their memory (engine.cuda_graph_gib) would be 0, and steps would take the kernel-launch overhead the step-time model leaves in overhead_ms',
  },
  {
    key: 'quantization', flag: '--quantization', where: 'ModelConfig.quantization',
    effect: 'the estimate reads quantization from the model\'s config.json (quantization_config), not from a flag',
  },
];

const BY_KEY = new Map(UNMODELLED_VLLM_FLAGS.map((f) => [f.key, f]));

/** The row for a profile key, or undefined when the key is no vLLM setting of the table. */
export function unmodelledVllmFlag(key: string): UnmodelledVllmFlag | undefined {
  return BY_KEY.get(key);
}

/** "<key> is a vLLM setting the estimate does not model: <what it would change>". */
export function unmodelledFlagMessage(f: UnmodelledVllmFlag): string {
  return `${f.key} is a vLLM setting (${f.flag}, ${f.where}) the estimate does not model: ${f.effect}`;
}
