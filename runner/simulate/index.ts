/**
 * runner/simulate: the paged KV-cache pool under a serving load — `attnscope simulate`.
 * simulatePool (simulation + baselines), readTrace / parseTrace (JSONL traces),
 * generateRequests / packRequests (profile workloads, traces, packed for the simulator), formatPoolSummary (the CLI's table).
 */
export { simulatePool, PoolConfigError, type PoolProgress, type SimulateOptions } from './simulate';
export { stepTimeModel, stepSeconds, stepWork, ASSUMED_STEP_TIME } from './step-time';
export { latencySummary, latencyStats, quantile, meetsSlo } from './latency';
export { readTrace, parseTrace, TraceError } from './trace';
export { generateRequests, packRequests, RequestPacker, scaleArrivals, sampleLength, Rng, type TraceRequest } from './workload';
export { formatPoolSummary } from './summary';
