/**
 * runner/sweep: what-if grids (issue 13). spec.ts expands a profile's `sweep:` block and
 * `--set` into points; local.ts runs them in child processes (worker.ts) with resume and
 * shards; results.ts reads point files and merges them into a report; slurm.ts and k8s.ts hand
 * the shards to Slurm job arrays and Kubernetes Indexed Jobs; cli.ts holds the commands.
 */
export { sweepCommand, mergeCommand, submitCommand } from './cli';
export { loadSweep, parseSetArg, pointId, canonicalJson, type SweepPlan, type SweepPoint } from './spec';
export { mergeResults, formatReport, metricsOf, environmentKey, readPointFile, REPORT_FILE } from './results';
export { runSweepLocally, shardPoints, shardFromEnvironment, parseShard, type Shard } from './local';
export { sbatchScript } from './slurm';
export { indexedJobManifest, k8sResultsDir } from './k8s';
