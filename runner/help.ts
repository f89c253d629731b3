/**
 * One line of help for every flag the commands' parsers take (runner/args.ts parse): `--help`
 * lists the parser's own options, each with its line from here, so a flag the parser takes is
 * never missing from the help (one without a line here shows as such, and a test fails).
 */
import type { ParseArgsConfig } from 'node:util';
import { wrapLine } from '../core/format';
import { proseWidth } from '../core/textTable';
import { TRACE_FORMATS } from './simulate/traces';
import { EXIT_SLO_MISSED } from '../core/protocol/runner';

/** What a flag's value is called in the help (`--json FILE`), and what the flag does. */
interface FlagHelp {
  value?: string;
  text: string;
  /** An editor-only flag: left out of --help, which is for people (it works all the same). */
  hidden?: true;
}

/** The flags every command spells the same way. */
const COMMON: Record<string, FlagHelp> = {
  json: { value: 'FILE', text: 'write the result as JSON to FILE, atomically (/dev/stdout: the JSON alone on stdout)' },
  explain: { text: "print the step-time model's derivation (peaks and their sources, coefficients, what each term stands for) under its formula; --json always holds it" },
  quick: { text: 'a short run: the smallest prefill length and decode case, fewer timing samples' },
  backend: { value: 'auto|cpu|cuda', text: "the kernels' backend (default: the profile's device.backend, else auto)" },
  events: { text: 'for a program that drives the run, as the editor does: read the profile, already resolved, as JSON on stdin (file -) and write progress, results and the end as NDJSON events on stdout, one JSON object a line' },
  set: { value: 'key=v1,v2', text: "add or replace a sweep axis: a profile key and its values (repeatable); a list key's values as lists in one list: --set 'decode.context_lens=[[512],[2048]]'" },
  csv: { value: 'FILE', text: "also write the report's table as CSV to FILE, the Sweep tab's Export CSV (a row per point and source, units in the column names; /dev/stdout: the CSV alone on stdout)" },
  out: { value: 'DIR', text: 'the results folder (default .attnscope/sweeps/<profile>-<sweep id>; created, its parent must exist)' },
};

/** Per command: flags whose meaning differs from {@link COMMON}, and the rest. */
const BY_COMMAND: Record<string, Record<string, FlagHelp>> = {
  bench: {
    'dry-run': { text: "plan and preflight the cases and list them, timing none (measures this machine's peaks for the slow-case warning)" },
  },
  estimate: {
    json: { text: 'print the estimate as JSON on stdout' },
  },
  simulate: {
    trace: { value: 'FILE', text: "replay this trace's requests instead of the profile's workload" },
    'trace-format': { value: 'F', text: `the trace format, one of ${TRACE_FORMATS.join(', ')}, when detecting it from the file is not wanted` },
    'trace-model': { value: 'M', text: "keep only the trace rows of this model (BurstGPT; replaces the profile's workload.trace_model)" },
    'trace-log-type': { value: 'T', text: 'keep only the trace rows of this log type (BurstGPT, e.g. "Conversation log"; replaces the profile\'s workload.trace_log_type)' },
    'trace-time-unit': { value: 's|ms', text: "the unit of the trace's time stamps, when not its format's own (a trace written in milliseconds: ms; replaces the profile's workload.trace_time_unit)" },
    'time-scale': { value: 'X', text: 'replay arrivals at X times the rate (2 = twice as fast)' },
    'slo-ttft-ms': { value: 'MS', text: 'time-to-first-token bound for goodput, ms (wins over the profile\'s slo)' },
    'slo-tpot-ms': { value: 'MS', text: 'time-per-output-token bound for goodput, ms (wins over the profile\'s slo)' },
    'max-rate': { text: 'search the highest arrival rate that meets the SLO and the server keeps up with (needs an SLO; starts at --time-scale)' },
    'skip-saturation': { text: 'do not measure the saturated throughput μ where the run is too short for its queue to tell whether the server keeps up (up to 5 more simulations, most of the time for a few huge requests): the run then has no keeps-up verdict' },
    'slo-attainment': { value: 'F', text: 'the share of requests that must meet the SLO for the run (and, with --max-rate, a rate) to meet it; overrides the profile\'s slo.attainment (default 0.9)' },
    'rate-tolerance': { value: 'F', text: 'with --max-rate: the relative tolerance of the search (default 0.02)' },
    calibrate: { value: 'FILE', text: 'fit the step time to a vllm bench serve result, or to a bench run JSON of this tool on a GPU' },
  },
  sweep: {
    'slo-ttft-ms': { value: 'MS', text: "time-to-first-token bound for goodput, ms (wins over the profile's slo): every point is judged by it, goodput and the best point too; the sweep adds it as the axis slo.ttft_ms of one value (--set slo.ttft_ms=MS), shown in the table and labels" },
    'slo-tpot-ms': { value: 'MS', text: "time-per-output-token bound for goodput, ms (wins over the profile's slo): every point is judged by it, goodput and the best point too; the sweep adds it as the axis slo.tpot_ms of one value (--set slo.tpot_ms=MS), shown in the table and labels" },
    'max-rate': { text: "job max-rate (as the profile's sweep.job: max-rate): each point's highest arrival rate meeting the profile's slo, the capacity search of simulate --max-rate; the best point has the highest rate per GPU, or, with a price per GPU-hour for every point's GPU (device.gpu_hour_usd, sweep.gpu_hour_usd), the lowest modelled $ per 1M output tokens at its max rate" },
    jobs: { value: 'N', text: 'points run at once (default: 1 for benchmarks, every core for simulations)' },
    shard: { value: 'i/N', text: 'run only shard i of N (from 0); merge the shards with attnscope merge' },
    events: { text: "write NDJSON events on stdout (points done, the running points' values, failures, the end with the report's path); the table goes to stderr; for a program that drives the sweep, as the editor does" },
  },
  trace: {
    'trace-format': { value: 'F', text: `the trace format, one of ${TRACE_FORMATS.join(', ')}, when detecting it from the file is not wanted` },
    'trace-time-unit': { value: 's|ms', text: "the unit of the trace's time stamps, when not its format's own, as simulate's" },
    'trace-model': { value: 'M', text: 'keep only the trace rows of this model (BurstGPT), as simulate\'s' },
    'trace-log-type': { value: 'T', text: 'keep only the trace rows of this log type (BurstGPT), as simulate\'s' },
    'profile-keys': { text: "name a profile's workload.trace_time_unit, trace_model and trace_log_type in messages instead of these flags (editor-only: the extension's check of workload.trace)", hidden: true },
    json: { text: 'print the summary as JSON on stdout' },
  },
  merge: {},
  submit: {
    'slo-ttft-ms': { value: 'MS', text: "time-to-first-token bound for goodput, ms (wins over the profile's slo), as sweep's: the axis slo.ttft_ms of one value" },
    'slo-tpot-ms': { value: 'MS', text: "time-per-output-token bound for goodput, ms (wins over the profile's slo), as sweep's: the axis slo.tpot_ms of one value" },
    'max-rate': { text: "job max-rate (as the profile's sweep.job: max-rate): each point's highest arrival rate meeting the profile's slo, the capacity search of simulate --max-rate; the best point has the highest rate per GPU, or, with a price per GPU-hour for every point's GPU (device.gpu_hour_usd, sweep.gpu_hour_usd), the lowest modelled $ per 1M output tokens at its max rate" },
    slurm: { text: 'write sweep.sbatch and submit it as a Slurm job array' },
    k8s: { text: 'write sweep-job.yaml: a Kubernetes Indexed Job (apply it with kubectl)' },
    tasks: { value: 'N', text: 'array tasks (pods) the points are split over' },
    partition: { value: 'P', text: 'Slurm partition' },
    'gpus-per-task': { value: 'G', text: 'GPUs per task' },
    'cpus-per-task': { value: 'C', text: 'CPUs per task (simulate: points at once; bench/both take a whole node per task and time one point at a time)' },
    time: { value: 'T', text: 'Slurm time limit per task (e.g. 00:10:00)' },
    wait: { text: 'wait for the Slurm job, then merge its results' },
    poll: { value: 'S', text: 'with --wait: seconds between polls of the job' },
    image: { value: 'IMAGE', text: 'the container image the pods run (attnscope on its PATH)' },
    pvc: { value: 'CLAIM', text: 'the PersistentVolumeClaim the pods write their results to' },
    namespace: { value: 'NS', text: 'the Kubernetes namespace' },
  },
  'vllm-log': {
    profile: { value: 'FILE', text: "set the log's figures beside the estimate of this profile or config.json" },
    startup: { value: 'K', text: 'in a log of several start-ups (a server restarted into the same file), read the K-th (default: the last with memory lines)' },
    json: { text: 'print the comparison as JSON on stdout' },
  },
};

/**
 * What a command's exit status says beyond README's common codes (0 success, 1 internal failure, 2 bad input,
 * 130 cancelled), for its --help; a command without an entry has none of its own.
 */
export const EXIT_STATUS: Record<string, string> = {
  simulate: `0 the run was simulated, its verdict printed (Overloaded without an SLO is a finding: 0); ${EXIT_SLO_MISSED} the SLO the profile's slo or --slo-* gave is missed: a plain run's share of requests meeting it is below its attainment target, or with --max-rate no rate tried meets it; the output and --json are written first (JSON: pool.latency.sloAttainment against pool.latency.slo.attainment, pool.capacity.maxRate null); 1 internal failure; 2 bad input; 130 cancelled`,
};

/** `command`'s {@link EXIT_STATUS} as help lines under a heading, wrapped at core/textTable.ts proseWidth; [] for a command without. */
export function exitStatusLines(command: string): string[] {
  const text = EXIT_STATUS[command];
  return text ? ['', 'exit status:', ...wrapLine(`  ${text}`, { indent: 2 })] : [];
}

/**
 * One or two command lines each command's `--help` ends with, run from the folder that holds the
 * shipped examples/ (a checkout of the repository); test/cli/help.test.ts runs every one of them
 * there and fails when one does not exit 0. Sweep's and merge's write the folder `pages` (and
 * `rates`, `pages.json`), submit's `k8s` (the manifest alone: nothing is applied); .gitignore covers
 * all four, so a checkout's `git status` stays clean (the test checks it).
 */
export const EXAMPLES: Record<string, readonly string[]> = {
  bench: ['attnscope bench examples/llama-3.1-8b.attn.yaml --dry-run'],
  estimate: ['attnscope estimate examples/llama-3.1-8b.attn.yaml', 'attnscope estimate examples/qwen3-30b-a3b/config.json --json'],
  simulate: ['attnscope simulate examples/llama-3.1-8b.attn.yaml', 'attnscope simulate examples/llama-3.1-8b.attn.yaml --trace examples/chat-trace.jsonl'],
  trace: ['attnscope trace examples/chat-trace.jsonl'],
  sweep: ['attnscope sweep examples/llama-3.1-8b.attn.yaml --set kv_cache.page_size=16,32 --out pages', 'attnscope sweep examples/llama-3.1-8b.attn.yaml --max-rate --set device.tensor_parallel_size=1,2 --set slo.ttft_ms=1000 --out rates'],
  merge: ['attnscope sweep examples/llama-3.1-8b.attn.yaml --set kv_cache.page_size=16,32 --out pages', 'attnscope merge pages --json pages.json'],
  submit: ['attnscope submit --k8s examples/llama-3.1-8b.attn.yaml --set kv_cache.page_size=16,32 --image ghcr.io/acme/attnscope:0.1.0 --pvc results --out k8s'],
  'vllm-log': ['attnscope vllm-log examples/vllm-llama-3.1-8b.log --profile examples/vllm-llama-3.1-8b-a100-40gb.attn.yaml'],
};

/**
 * The lines `command`'s --help ends with: its {@link EXAMPLES} under a heading, each wrapped at
 * core/textTable.ts proseWidth (min(the tables' width, 100)) before a flag (`--name value` kept whole) and continued under the command's
 * first argument, every line but its last ending in ` \`, so that the lines pasted into a shell
 * are the one command; [] for a command without.
 */
export function exampleLines(command: string): string[] {
  const lines = EXAMPLES[command];
  if (!lines) return [];
  const wrapped = lines.flatMap((l) => {
    // Room for the ' \' each line but the last ends with.
    const parts = wrapLine(`  ${l}`, { width: proseWidth() - 2, indent: firstArgumentColumn(`  ${l}`), breakBefore: ['--'] });
    return parts.map((part, i) => (i < parts.length - 1 ? `${part} \\` : part));
  });
  return ['', 'examples (run where the shipped examples/ folder is, e.g. a checkout of the repository):', ...wrapped];
}

/** The column of a command line's first argument (`  attnscope CMD ARG`: ARG's), where its continuation lines start; else the line's indent. */
function firstArgumentColumn(line: string): number {
  const lead = line.length - line.trimStart().length;
  const command = /^attnscope \S+ /.exec(line.trimStart());
  return lead + (command ? command[0].length : 0);
}

/**
 * Usage text wrapped to core/textTable.ts proseWidth before a ' [' or ' (': a line `  attnscope CMD ...` continues
 * under its first argument, as USAGE's own continuation lines do; another line at its own indent.
 */
export function wrapHelp(text: string): string {
  return text.split('\n').flatMap((l) => wrapLine(l, { indent: firstArgumentColumn(l), breakBefore: ['[', '('] })).join('\n');
}

/** Marks a flag the parser takes that has no line here; a test looks for it. */
export const NO_HELP = '(no description)';

/**
 * The flag lines of `command`'s help, one per option of its parser, in the parser's order:
 * `  --name VALUE   what it does`, aligned; a description past core/textTable.ts proseWidth continues on
 * lines indented to its column. A hidden flag (editor-only, {@link FlagHelp}) has no line.
 */
export function flagLines(command: string, options: NonNullable<ParseArgsConfig['options']>): string[] {
  const rows = Object.entries(options).filter(([name]) => !(BY_COMMAND[command]?.[name] ?? COMMON[name])?.hidden).map(([name, opt]) => {
    const help = BY_COMMAND[command]?.[name] ?? COMMON[name];
    const value = opt.type === 'string' ? ` ${help?.value ?? 'VALUE'}` : '';
    return [`--${name}${value}`, help?.text ?? NO_HELP] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.flatMap(([flag, text]) => wrapLine(`  ${flag.padEnd(width)}  ${text}`, { indent: width + 4 }));
}
