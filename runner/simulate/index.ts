/**
 * runner/simulate: the paged KV-cache pool under a serving load — `attnscope simulate`.
 * simulatePool (simulation + baselines), readTrace / parseTrace (JSONL traces),
 * generateRequests / packRequests (profile workloads, traces, packed for the simulator), formatPoolSummary (the CLI's table).
 */
export { simulatePool, defaultStepTime, PoolConfigError, REFERENCE_ACCELERATOR, type PoolProgress, type SimulateOptions } from './simulate';
export { readTrace, parseTrace, TraceError } from './trace';
export { generateRequests, packRequests, sampleLength, type TraceRequest } from './workload';
export { Rng } from '../random';
export { formatPoolSummary } from './summary';
