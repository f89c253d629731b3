/**
 * runner/simulate: the paged KV-cache pool under a serving load — `attnscope simulate`.
 * simulatePool (simulation + baselines), parseTrace / parseTraceLine (attnscope JSONL),
 * generateRequests / RequestPacker (profile workloads, traces, packed for the simulator), formatPoolSummary (the CLI table),
 * readTraceFile (Azure, BurstGPT, Mooncake, vllm bench serve, attnscope JSONL), latencySummary, searchCapacity, calibrateStepTime.
 */
export { simulatePool, poolRejections, WATERMARK, ArrivalSpanError, PoolConfigError, workloadTimeScaleProblem, type PoolProgress, type PrepareProgress, type SimulateOptions } from './simulate';
export { stepTimeModel, stepSeconds, stepWork, ASSUMED_STEP_TIME } from './step-time';
export { latencySummary, latencyStats, quantile, meetsSlo } from './latency';
export { parseTrace, parseTraceLine, TraceError } from './trace';
export { generateRequests, packRequests, RequestGenerator, RequestPacker, scaleArrivals, sampleLength, type TraceRequest } from './workload';
export { Rng } from '../random';
export { formatPoolSummary } from './summary';
export { forEachLine, scanLines, splitCsv } from './lines';
export { readTraceFile, detectTraceFormat, readVllmResult, parseDatetimeSeconds, TRACE_FORMATS, type TraceFormat, type TraceRead } from './traces';
export { searchCapacity, baseRate } from './capacity';
export { calibrateStepTime, formatCalibration, type CalibrationFit } from './calibrate';
