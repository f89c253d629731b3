/**
 * `attnscope` — the headless front door of the runner (DESIGN.md "Commands").
 *
 *   attnscope bench <config.json | *.attn.yaml | *.attn.json> [--json FILE] [--quick] [--backend auto|cpu|cuda] [--dry-run] [--explain]
 *   attnscope bench - --events          resolved Profile JSON on stdin, NDJSON RunnerEvents on stdout
 *   attnscope estimate <file> [--json]
 *   attnscope simulate <profile> [--trace FILE] [--json FILE] [--slo-ttft-ms MS] [--max-rate] ... (USAGE below)
 *   attnscope simulate - --events       the same for a resolved Profile on stdin, NDJSON RunnerEvents on stdout
 *   attnscope sweep | merge | submit     what-if grids (runner/sweep/cli.ts)
 *   attnscope vllm-log <vllm.log> [--profile FILE] [--startup K] [--json]
 *
 * Exit 0 on success, 2 on bad input (one line `file:line:col: message` on stderr, no output
 * file written), 1 on an internal failure or a failed write to stdout, 141 when stdout's reader
 * is gone (exitOnWriteFailure), 130 when cancelled (SIGINT/SIGTERM). Progress goes
 * to stderr, results to stdout.
 */
import { accessSync, constants, fstatSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import * as jsonc from 'jsonc-parser';
import { fileLocation, offsetToLineColumn } from '../core/config/positions';
import { traceFileStat } from '../core/fileText';
import { closestMatch } from '../core/config/suggest';
import { jsonErrorText, nodeAtPath, parseJsonTree } from '../core/config/tree';
import { BACKENDS, isBackend, type KernelBackendName, type Problem, type Profile, type StepTimeSpec } from '../core/config/types';
import { unusedWithTraceMessage } from '../core/config/profileChecks';
import { resolvedCheckPath, resolvedProfileChecks, resolvedProfileProblemsAt, withCheckedGpu } from '../core/config/resolvedProfile';
import { createRun, runHeader, traceReplayArgs, type Environment, type EstimateFile, type RunProblem, type PoolResult, type PoolSample, type RunParts, type RunResult, type StepTimeModel, type TraceFile, type TraceSummary } from '../core/protocol/run';
import { batchLimitsText, estimate, maxModelLenOf, referenceSeqLen } from '../core/estimate';
import { BENCHMARK_ONLY_CODES, BENCHMARK_ONLY_WARNINGS, deploymentProblems, POOL_NOT_SIMULABLE, poolCause, runSeverity } from '../core/validate';
import { deployedGpuCount, formatCount, formatCountOf, formatDuration, formatPercent, formatRequestRate, formatTimeScale, formatTraceSummary, perGpuCasesHeader, poolCancelledText, poolCost, tooShortToTell, wrapLine, wrapLongLines } from '../core/format';
import { localeOutput } from '../core/textTable';
import { EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_SLO_MISSED, type RunnerEvent } from '../core/protocol/runner';
import { loadAddon, NativeMissingError, outputReaderGone, stopSimulations } from '../native';
import { checkOutputPath, EXIT_CANCELLED, HelpRequest, namesStdout, parse, shellQuote, writeData, writeFailure, writeOutput } from './args';
import { describeMachine } from './environment';
import { exampleLines, exitStatusLines, flagLines, wrapHelp } from './help';
import { BackendError, backendCases, describeCase, measureBackendEnvironment, runBench, selectBackend, slowCaseNotes } from './bench';
import { planCases, quickShortening, windowCoverage } from './plan';
import { cancelLine, CancelledError, cancelPoint, eachInputError, InputError, InputErrors, OutputError, readFailure, UsageError } from './errors';
import { ArrivalSpanError, formatPoolSummary, PoolConfigError, poolRejections, simulatePool, WATERMARK, workloadTimeScaleProblem, type PoolProgress, type PrepareProgress } from './simulate';
import { calibrateStepTime, calibrationModelMismatch, formatCalibration, heldParametersText } from './simulate/calibrate';
import { calibrateFromKernels, formatKernelCalibration, KernelCalibrationError, readKernelRun } from './simulate/calibrate-kernels';
import { checkKeepsUp, SATURATION_MAX_RUNS, saturationRequests, searchCapacity, type SaturationProgress } from './simulate/capacity';
import { formatCapacity, sloMissedLine } from './simulate/latency-format';
import { readSimulateFlags, SIMULATE_FLAGS, type SimulateFlags } from './simulate/options';
import { arrivalSpan, describeDropped, readTraceFile, readVllmResult, TRACE_FORMATS, traceReplay, traceSetting, TRACE_TIME_UNIT_SECONDS, type TraceFormat, type TraceRead, type TraceReadOptions, type TraceTimeUnit, type VllmBenchResult } from './simulate/traces';
import { MAX_TRACE_TOKENS } from './simulate/trace';
import { calibrateByReplay, formatCalibrationReplay, formatReplayRounds, replayCaution } from './simulate/calibrate-replay';
import { mergeCommand, submitCommand, sweepCommand } from './sweep';
import { capRepeats, formatProblem, loadProfile, profileCommand, profileInputs, readProfileInput, type LoadedProfile } from './load';
import { benchPreflight, placeRefusals } from './preflight';
import { muMeasureNote, muProgressText, Progress, simulationPlanNote, simulationProgressText, skippedSaturationNote, TimeLeft } from './progress';
import { formatEstimateOf, formatRun } from './table';
import { toolBuild } from './version';
import { vllmLogReport } from './vllmLog';

const USAGE = `usage:
  attnscope bench <config.json | *.attn.yaml | *.attn.json> [--json FILE] [--quick] [--backend auto|cpu|cuda] [--dry-run] [--explain]
  attnscope bench - --events        (a resolved Profile as JSON on stdin; NDJSON events on stdout)
  attnscope estimate <file> [--json]
  attnscope simulate <profile> [--trace FILE] [--trace-format F] [--trace-model M] [--trace-log-type T] [--trace-time-unit s|ms]
                     [--time-scale X] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--calibrate VLLM_RESULT.json | RUN.json]
                     [--slo-attainment 0.9] [--max-rate [--rate-tolerance 0.02] | --skip-saturation] [--json FILE] [--explain]
  attnscope simulate - --events     (a resolved Profile as JSON on stdin; NDJSON events on stdout)
  attnscope simulate RUN.json [flags] (a saved run's profile again, with its --time-scale and SLO unless given; a run that replayed a trace needs --trace: the refusal names the flags)
  attnscope trace FILE [--trace-format F] [--trace-time-unit s|ms] [--trace-model M] [--trace-log-type T] [--json]   (read a trace as simulate does: its requests, span and mean lengths)
  attnscope sweep <profile> [--set key=v1,v2]... [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-rate] [--jobs N] [--shard i/N] [--out DIR] [--json FILE] [--csv FILE] [--quick] [--backend B] [--events]
  attnscope merge DIR... [--json FILE] [--csv FILE]
  attnscope submit --slurm <profile> [--set ...] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-rate] [--tasks N] [--partition P] [--gpus-per-task G] [--cpus-per-task C] [--time T] [--out DIR] [--wait] [--poll S] [--quick] [--backend B]
  attnscope submit --k8s <profile> --image IMAGE --pvc CLAIM [--set ...] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-rate] [--tasks N] [--gpus-per-task G] [--cpus-per-task C] [--namespace NS] [--out DIR] [--quick] [--backend B]
  attnscope vllm-log <vllm.log> [--profile FILE] [--startup K] [--json]   (compare vLLM's start-up memory lines with the estimate)
  attnscope --version`;

/** `attnscope <command> --help`: USAGE's lines for that command (with their continuation lines); undefined for an unknown command. */
function commandUsage(command: string): string | undefined {
  const lines: string[] = [];
  let inside = false;
  for (const line of USAGE.split('\n').slice(1)) {
    if (line.startsWith('  attnscope ')) inside = line.startsWith(`  attnscope ${command} `);
    if (inside) lines.push(line);
  }
  return lines.length > 0 ? `usage:\n${lines.join('\n')}` : undefined;
}

/**
 * Where a command writes: the process's stdout and stderr, or (the CLI fuzz test) streams that
 * collect what `main` would print. Progress draws in place only when `stderr.isTTY`.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

const PROCESS_IO: CliIo = { stdout: process.stdout, stderr: process.stderr };

function onePositional(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one file, got ${positionals.length}`);
  return positionals[0]!;
}

/**
 * The one input file of a command whose `--json` is a flag (estimate, vllm-log: the output is
 * small and stdout carries it), where `--json /dev/stdout` (args.ts namesStdout, as bench,
 * simulate, sweep and merge take it) reads as the value it is for those commands: the JSON on
 * stdout. `--json FILE` is refused with the redirection that writes FILE; `rest` is the
 * command's other arguments, for that hint ("--profile P").
 * @throws UsageError (exit 2) for `--json FILE`, or not exactly one file.
 */
function fileOfJsonFlagCommand(positionals: string[], json: boolean, command: string, rest = ''): string {
  if (json && positionals.length === 2 && !namesStdout(positionals[1])) {
    throw new UsageError(`${command} --json prints JSON to stdout; to a file: attnscope ${command} ${positionals[0]}${rest} --json > ${positionals[1]}`, false);
  }
  return onePositional(json && positionals.length === 2 ? positionals.slice(0, 1) : positionals, command);
}

/**
 * Aborts on the first SIGINT/SIGTERM (the reason: a CancelledError naming it; a bench stops its
 * kernel call in flight on it, runBench); a second one exits at once, once the simulation worker
 * has left its slice (exiting in the middle of one would abort the process). `dispose` removes
 * the handlers when the command ends, so that `main` can run many times in one process.
 */
function cancellation(): AbortController & { dispose(): void } {
  const ac = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (ac.signal.aborted) void stopSimulations().finally(() => process.exit(EXIT_CANCELLED));
    else ac.abort(new CancelledError(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return Object.assign(ac, {
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * readStdin, or the signal's CancelledError as soon as it aborts: stdin is then let go, so that a
 * writer that keeps the pipe open does not keep a cancelled process waiting for its end.
 */
async function readStdinUnlessCancelled(signal: AbortSignal): Promise<string> {
  const reading = readStdin();
  // The read left behind when the signal wins settles later (or never): nothing waits for it.
  reading.catch(() => undefined);
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      process.stdin.destroy();
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([reading, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Where bad input on stdin is placed. */
const STDIN = '<stdin>';

/**
 * The resolved Profile the extension sends on stdin. Its source ranges point into text the
 * runner does not have (the editor's, maybe unsaved), so bad input is placed at `<stdin>`.
 * A saved run's profile (`simulate RUN.json`: `where` the file, `runText` its text) is called
 * "the run's profile" and its problems are placed at the value in the file (s53 newcomer 6: a
 * hand-edited `"requests": "lots"` was placed at 1:1).
 */
function profileFromStdin(text: string, where: string = STDIN, command = 'simulate', runText?: string): LoadedProfile {
  // What `-` reads, said where stdin is not that (a profile file piped in, or nothing).
  const door = `\`${command} -\` reads a resolved Profile as JSON (what the editor sends), not a profile file: give the file's path instead (attnscope ${command} p.attn.yaml)`;
  if (where === STDIN && text.trim() === '') throw new InputError(`stdin is empty: ${door}`, where);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // jsonc-parser's words and place, on one line (V8's message quotes the input, newlines and all).
    const errors: jsonc.ParseError[] = [];
    jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (!first) throw new InputError(`${where === STDIN ? 'stdin' : where} is not JSON: ${(e as Error).message.split('\n')[0]}`, where);
    const at = offsetToLineColumn(text, first.offset);
    // The place once, in the prefix (s45 newcomer LOW: "<stdin>:1:1: ... at line 1, column 2" gave two).
    throw new InputError(`${where === STDIN ? 'stdin' : where} is not JSON: ${jsonErrorText(first.error)}${where === STDIN ? `; ${door}` : ''}`, where, at.line, at.column);
  }
  const p = value as Partial<Profile> | null;
  if (!p || typeof p !== 'object' || !p.model || !p.prefill || !p.decode || !p.kvCache || !p.device) {
    // Where one comes from (s47 newcomer LOW-7): every run file holds the resolved Profile it ran.
    throw new InputError(`${where === STDIN ? 'stdin' : where} must hold a resolved profile as JSON, as a run file's "profile" is (attnscope simulate p.attn.yaml --json run.json)${where === STDIN ? `; for a profile file give its path instead (attnscope ${command} p.attn.yaml)` : ''}`, where);
  }
  // The limits a profile file meets (its schema, the config reader's), before any work.
  const whose = runText !== undefined ? "the run's profile" : `the resolved Profile ${where === STDIN ? 'on stdin' : `in ${where}`}`;
  const refuse = (message: string, count: number, at: Array<string | number>): InputError => {
    const place = runText !== undefined ? savedRunValueAt(runText, ['profile', ...at]) : undefined;
    return new InputError(`${whose}: ${message}${count > 1 ? ` (and ${count - 1} more)` : ''}`, where, place?.line, place?.column);
  };
  const problems = resolvedProfileProblemsAt(p);
  if (problems.length > 0) throw refuse(problems[0]!.message, problems.length, problems[0]!.at);
  // Then the checks a file meets past its schema (tp against the heads, min <= max, ...): its errors refuse, as a file's do.
  const profile = withCheckedGpu(p as Profile);
  const checks = resolvedProfileChecks(profile);
  const errors = checks.filter((q) => q.severity === 'error');
  if (errors.length > 0) throw refuse(errors[0]!.message, errors.length, resolvedCheckPath(profile, errors[0]!));
  return {
    profile,
    // No text to read again: the file's checks and the deployment checks of the resolved Profile, as a file's (core/validate.ts).
    problems: [...checks, ...deploymentProblems(profile)].map((q) => ({ ...q, severity: runSeverity(q) })),
    locate: (problem) => ({ severity: problem.severity, code: problem.code, message: problem.message, file: where }),
    format: (problem) => formatProblem({ severity: problem.severity, code: problem.code, message: problem.message, file: where }),
    errorAt: (_key, message) => new InputError(message, where),
  };
}

/**
 * The line and column (from 1) of the value at `path` in the JSON `text` (a saved run), or of
 * its nearest parent written there (a key the run lacks is placed at the object that lacks it);
 * undefined when the text does not parse.
 */
function savedRunValueAt(text: string, path: ReadonlyArray<string | number>): { line: number; column: number } | undefined {
  const { root } = parseJsonTree(text);
  if (!root) return undefined;
  for (let n = path.length; n >= 0; n--) {
    const node = nodeAtPath(root, path.slice(0, n));
    if (node) return offsetToLineColumn(text, node.range.offset);
  }
  return undefined;
}

/**
 * `attnscope bench <profile | -> [flags]`. One SIGINT/SIGTERM handler from before the profile is
 * read to the end (as simulate): a signal while the profile is read is seen once the run starts,
 * which then ends as a cancelled run of no case (under --events, its `done`); a dry run hands the
 * signal back to Node's default before it measures anything. While stdin is still open (no
 * profile yet) a cancel ends at once: exit 130 and one line, no run to end the stream on.
 */
async function benchCommand(argv: string[], io: CliIo): Promise<number> {
  const ac = cancellation();
  try {
    return await benchCancellable(argv, io, ac);
  } finally {
    ac.dispose();
  }
}

async function benchCancellable(argv: string[], io: CliIo, ac: AbortController & { dispose(): void }): Promise<number> {
  const { values, positionals } = parse(argv, {
    json: { type: 'string' },
    quick: { type: 'boolean', default: false },
    backend: { type: 'string' },
    events: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
  });
  const file = onePositional(positionals, 'bench');
  const dryRun = values['dry-run'] === true;
  const backendFlag = values.backend as string | undefined;
  if (backendFlag !== undefined && !isBackend(backendFlag)) throw new UsageError(`--backend must be ${BACKENDS.join(', ').replace(/, (?=[^,]*$)/, ' or ')}, got '${backendFlag}'`);
  const events = values.events === true;
  const quick = values.quick === true;
  if (dryRun && (values.json !== undefined || events)) throw new UsageError(`--dry-run times no case, so it writes no run: drop ${values.json !== undefined ? '--json' : '--events'}`, false);
  checkStdoutFree(values.json as string | undefined, events);
  const emitLine = (e: RunnerEvent) => io.stdout.write(`${JSON.stringify(e)}\n`);

  // Both doors, the file named and the resolved Profile on stdin, meet the same preflight.
  let loaded: LoadedProfile;
  try {
    loaded = file === '-' ? profileFromStdin(await readStdinUnlessCancelled(ac.signal), STDIN, 'bench') : loadProfile(file, profileCommand('bench'));
  } catch (e) {
    if (e instanceof CancelledError) {
      io.stderr.write(cancelLine('bench', e, ' while reading the profile from stdin', 'nothing written'));
      return EXIT_CANCELLED;
    }
    // As simulate: an --events reader gets the refusal as an event too.
    if (events && e instanceof InputError) for (const one of eachInputError(e)) emitLine({ type: 'error', message: one.message, file: one.file, line: one.line, column: one.column });
    throw e;
  }
  const { profile } = loaded;
  checkOutputPath(values.json as string | undefined, '--json', profileInputs(file, profile));
  const name = file !== '-' ? basename(file) : profile.sourcePath ? basename(profile.sourcePath) : 'stdin';
  const preflight = benchPreflight(loaded, quick);
  if (preflight.refusals.length > 0) {
    // Every refusal at once, a line each (an `error` event each), before any kernel runs.
    const placed = placeRefusals(loaded, preflight.refusals, file === '-' ? STDIN : file);
    if (events) for (const { error: err, code } of placed) emitLine({ type: 'error', message: err.message, file: err.file, line: err.line, column: err.column, ...(code ? { code } : {}) });
    throw placed.length === 1 ? placed[0]!.error : new InputErrors(placed.map((p) => p.error));
  }
  // The flag wins over the profile's device.backend.
  const backend = backendFlag !== undefined && isBackend(backendFlag) ? backendFlag : profile.device.backend;
  // A backend that cannot run, asked for by --backend: the refusal names the flag, as every flag error does.
  const namingFlag = (e: unknown): unknown => (e instanceof BackendError && backendFlag !== undefined ? new BackendError(`--backend ${backendFlag}: ${e.message}`) : e);
  // CUDA asked for and not there: refused in one line before the profile's notes and --quick's (s43 newcomer43 L5).
  if (backend === 'cuda') {
    try {
      selectBackend(backend, planCases(profile, { quick }));
    } catch (e) {
      throw namingFlag(e);
    }
  }
  const problems = writeProblems(loaded, capRepeats(preflight.notes), (line, level) => (events ? emitLine({ type: 'log', level, message: line }) : io.stderr.write(`${line}\n`)));

  const shortened = quick ? quickShortening(profile) : [];
  if (shortened.length > 0) {
    const line = `--quick shortened ${shortened.join(', ')}`;
    if (events) emitLine({ type: 'log', level: 'info', message: line });
    else io.stderr.write(`${wrapLongLines(line)}\n`);
  }
  const covered = windowCoverage(profile, quick);
  if (covered) {
    const line = `note: ${covered}`;
    if (events) emitLine({ type: 'log', level: 'info', message: line });
    else io.stderr.write(`${line}\n`);
  }
  if (dryRun) {
    // A dry run writes no run: Ctrl-C ends it as Node does by default.
    ac.dispose();
    const planned = planCases(profile, { quick });
    let chosen: KernelBackendName;
    try {
      chosen = selectBackend(backend, planned).name;
    } catch (e) {
      throw namingFlag(e);
    }
    const { cases: plan, skipped } = backendCases(chosen, planned);
    if (skipped) io.stderr.write(`warning: ${skipped}\n`);
    const pool = !profile.workload ? '' : preflight.poolSkipped ? '; the page-pool simulation is skipped (the warning above)' : ` and a page-pool simulation of ${formatCountOf(profile.workload.requests, 'request')}`;
    // The run's own warning of cases one call of which takes minutes, over this machine's peaks (measured, about a second).
    const peaks = await dryRunPeaks(chosen);
    for (const message of slowCaseNotes(plan, chosen, peaks)) io.stderr.write(`warning: ${message}\n`);
    const perGpu = perGpuCasesHeader(plan.map((c) => c.shape));
    io.stdout.write(`${[`dry run: ${formatCountOf(plan.length, 'case')} on ${chosen}${pool}; no case timed${perGpu ? `; ${perGpu}` : ''}`, ...plan.map((c) => `  ${describeCase(c)}`)].join('\n')}\n`);
    return EXIT_OK;
  }

  const progress = new Progress(io.stderr);
  const emit = (e: RunnerEvent) => {
    if (events) emitLine(e);
    if (e.type === 'progress') progress.update(e.done, e.total, e.message);
    else if (e.type === 'log' && !events) io.stderr.write(`${e.level}: ${e.message}\n`);
  };
  let run;
  try {
    run = await runBench(profile, { quick, backend, name, signal: ac.signal, emit, problems }).catch((e: unknown) => {
      throw namingFlag(e);
    });
  } finally {
    ac.dispose();
  }
  progress.finish();
  const json = values.json as string | undefined;
  // A cancelled run is written (the cases so far), but one with no case never replaces a file
  // that is there already (an earlier whole run, as likely as not).
  const keep = run.status === 'cancelled' && run.cases.length === 0 && json !== undefined && existingFile(json);
  if (json && !keep) writeOutput(json, `${JSON.stringify({ ...run, origin: 'cli' }, null, 2)}\n`, '--json', io.stdout);
  if (run.status === 'cancelled') {
    const reason = ac.signal.reason instanceof CancelledError ? ac.signal.reason : new CancelledError();
    const cases = `${run.cases.length} of ${formatCountOf(planCases(profile, { quick }).length, 'case')}`;
    // During the pool simulation: the cases are timed, and the pool is what was lost.
    const where = run.poolCancelled ? ` ${poolCancelledText(run.poolCancelled)}` : ` after ${cases}`;
    const so = run.poolCancelled ? `the run so far (${cases})` : 'the run so far';
    const outcome = keep ? `nothing written (${json} left as it was)` : json && !namesStdout(json) ? `${so} written to ${json}` : `${so} is on stdout`;
    io.stderr.write(cancelLine('bench', reason, where, outcome));
  }
  if (events) emitLine({ type: 'done', run });
  // Wrapped as simulate's report is: prose past 100 columns (the CPU line, the estimate's, the legend), tables whole.
  else (namesStdout(values.json as string | undefined) ? io.stderr : io.stdout).write(`${wrapLongLines(formatRun(run, { explain: values.explain === true }))}\n`);
  return run.status === 'cancelled' ? EXIT_CANCELLED : EXIT_OK;
}

/** True when `path` names a regular file that is there (links followed). */
function existingFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const measuredPeaks = new Map<KernelBackendName, Promise<Environment['peaks']>>();

/** This machine's peaks for a dry run's slow-case check, measured once per process and backend (`main` runs many dry runs in one process in the CLI fuzz test). */
function dryRunPeaks(backend: KernelBackendName): Promise<Environment['peaks']> {
  let peaks = measuredPeaks.get(backend);
  if (!peaks) {
    peaks = measureBackendEnvironment(backend).then((env) => env.peaks);
    measuredPeaks.set(backend, peaks);
  }
  return peaks;
}

/** The workload keys of the requests it draws, which a trace replaces: where nothing is drawn, problems at them are about nothing used. */
const DRAW_KEYS = ['workload.requests', 'workload.arrival_rate', 'workload.prompt_len', 'workload.output_len', 'workload.prefix_sharing', 'workload.seed'];

/**
 * True for a problem about the requests the workload draws: at one of DRAW_KEYS, or their prompt
 * + output against max_model_len (exceeds-max-model-len, at whichever of the three is written).
 */
function aboutTheDraws(profile: Profile, problem: Problem): boolean {
  if (problem.code === 'exceeds-max-model-len') return true;
  if (problem.file !== undefined) return false; // a problem of the model's config.json
  const at = problem.range.offset;
  return DRAW_KEYS.some((k) => {
    const r = profile.ranges[k];
    return r !== undefined && at >= r.offset && at <= r.offset + r.length;
  });
}

/**
 * The problems found reading the file, then the deployment notes, one line each on stderr, but
 * for the pool a simulation cannot size (simulate refuses it in its own words; estimate sizes no
 * simulation); `noDraws`: no request of the workload's is drawn (a trace replaces them; estimate
 * simulates nothing), so nothing is said about them (s39 newcomer 7: estimate warned that the
 * default prompt_len reaches max_model_len 4096); `simulating`: the pool a simulation cannot size is
 * said by its refusal alone; `benchmarks` false (simulate, estimate): nothing is benchmarked, so
 * the kernels' info notes are not said (BENCHMARK_ONLY_CODES at severity info; s48 newcomer L7:
 * estimate of DeepSeek-V3 said which head_dim its decode is benchmarked at); a kernel warning (a
 * page_size past the CUDA kernels under the profile's own backend: cuda) is still said, as the
 * editor says it, but for BENCHMARK_ONLY_WARNINGS (the fp8 KV cache the benchmark runs in bf16).
 * @returns the lines written, located, for the run's JSON (RunResult.problems, estimate --json's problems).
 */
function printNotes(loaded: LoadedProfile, write: (line: string, level: 'info' | 'warn') => void, noDraws = false, simulating = false, benchmarks = !simulating): RunProblem[] {
  // The device-fit warning a simulation's refusal repeats (the pool has no pages for its cause: core/validate.ts poolCause) is said once, by the refusal.
  const refused = simulating ? loaded.problems.map((p) => poolCause(p, loaded.problems)).filter((p) => p !== undefined) : [];
  const problems = loaded.problems.filter((p) => p.code !== POOL_NOT_SIMULABLE && !refused.includes(p) && !(noDraws && aboutTheDraws(loaded.profile, p)) && !(!benchmarks && BENCHMARK_ONLY_CODES.has(p.code) && (p.severity === 'info' || BENCHMARK_ONLY_WARNINGS.has(p.code))));
  return writeProblems(loaded, capRepeats(problems), write);
}

/** Each of `problems` located and written as one line (LoadedProfile.format); the located list back. */
function writeProblems(loaded: LoadedProfile, problems: readonly Problem[], write: (line: string, level: 'info' | 'warn') => void): RunProblem[] {
  return problems.map((note) => {
    const located = loaded.locate(note);
    write(formatProblem(located), note.severity === 'info' ? 'info' : 'warn');
    return located;
  });
}

/** A line for the user: on stderr, or under --events a `log` event. */
function lineWriter(io: CliIo, events: boolean): (line: string, level?: 'info' | 'warn') => void {
  return (line, level = 'info') => (events ? io.stdout.write(`${JSON.stringify({ type: 'log', level, message: line } satisfies RunnerEvent)}\n`) : io.stderr.write(`${line}\n`));
}

/** Refuses --json naming standard output beside --events, whose NDJSON stream is stdout. @throws UsageError (exit 2). */
function checkStdoutFree(json: string | undefined, events: boolean): void {
  if (events && namesStdout(json)) throw new UsageError(`--json ${json}: --events writes its events to stdout; give --json a file`, false);
}

/** Refuses a --calibrate file that cannot be read, naming it as the calibration file. @throws InputError (exit 2) at file:1:1. */
function checkCalibrationFile(path: string): void {
  try {
    if (statSync(path).isDirectory()) throw new InputError('cannot read the calibration file: it is a folder, not a file', path);
    accessSync(path, constants.R_OK);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read the calibration file: ${readFailure(e, 'file', path)}`, path);
  }
}

async function estimateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false } });
  const file = fileOfJsonFlagCommand(positionals, values.json === true, 'estimate');
  const loaded = loadProfile(file, profileCommand('estimate'));
  const problems = printNotes(loaded, lineWriter(io, false), true, false, false);
  const est = estimate(loaded.profile);
  const json = (): EstimateFile => ({ ...runHeader(basename(file), toolBuild()), kind: 'estimate', ...est, problems });
  if (values.json) writeData(io.stdout, `${JSON.stringify(json(), null, 2)}\n`);
  else io.stdout.write(`${wrapLongLines(formatEstimateOf(loaded.profile, est, basename(file)))}\n`);
  return EXIT_OK;
}

/**
 * `attnscope simulate <profile | -> [flags]`. Under --events (the editor's "Run serving
 * simulation", a resolved Profile on stdin as for bench): notes and the step-time model as `log`
 * events, `progress` in percent, the pool's `poolSample`s, then `done` with the run (kind
 * 'simulate'); bad input is an `error` event before the exit 2; a cancel writes nothing (exit 130)
 * but, once simulating, a `done` whose run has status 'cancelled' and no pool.
 */
async function simulateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(argv, SIMULATE_FLAGS);
  const file = onePositional(positionals, 'simulate');
  const flags = readSimulateFlags(values);
  checkStdoutFree(flags.json, flags.events);
  const emitLine = (e: RunnerEvent) => io.stdout.write(`${JSON.stringify(e)}\n`);
  // One handler from before the first read to the end: a SIGINT or SIGTERM while the profile or
  // the trace is still read (seconds for millions of rows) cancels as one in the simulation does,
  // with exit 130 and one line, where Node's default handler would end the process silently
  // (SIGINT) or with 143 (SIGTERM). Reading is synchronous, so the handler runs at the next
  // checkpoint after it (cancelPoint).
  const ac = cancellation();
  const phase: SimulatePhase = { doing: file === '-' ? 'reading the profile from stdin' : 'reading the profile' };
  let loaded: LoadedProfile | undefined;
  try {
    const input = file === '-' ? null : readProfileInput(file);
    // A saved run: its resolved profile again (the one command that takes a run; loadProfile refuses one).
    if (input?.run) checkSavedRunTrace(file, input.run, flags);
    if (input?.run) {
      const restored = restoreSavedRunFlags(input.run, flags, values['time-scale'] !== undefined);
      if (restored) lineWriter(io, flags.events)(`${file}: ${restored}`);
    }
    loaded = input === null ? profileFromStdin(await readStdinUnlessCancelled(ac.signal)) : input.run ? profileFromStdin(JSON.stringify(input.run.profile), file, 'simulate', input.text) : loadProfile(file, profileCommand('simulate'), input);
    await cancelPoint(ac.signal);
    return await simulateProfile(file, loaded, flags, io, ac.signal, phase, input?.run ?? undefined);
  } catch (e) {
    // A cancel before the simulation (once simulating, simulateProfile ends the run itself).
    if (e instanceof CancelledError) {
      const at = phase.doing ? ` while ${phase.doing}` : '';
      io.stderr.write(cancelLine('simulate', e, at, 'nothing written'));
      // The terminal event core/protocol/runner.ts promises, as a cancel while simulating ends:
      // from the moment a profile is read (a signal during the read is seen just after it).
      // Before (stdin still open) there is no profile to make a run of: the exit says it.
      if (flags.events && loaded) emitLine({ type: 'done', run: simulateRunOf(file, loaded.profile, new Date(), describeMachine(), { status: 'cancelled', error: `${e.message}${at}` }) });
      return EXIT_CANCELLED;
    }
    if (flags.events && e instanceof InputError) for (const one of eachInputError(e)) emitLine({ type: 'error', message: one.message, file: one.file, line: one.line, column: one.column });
    // A flag the profile refuses (--time-scale out of its range, --max-rate without an SLO): an event too, as protocol/runner.ts promises for bad input.
    if (flags.events && e instanceof UsageError) emitLine({ type: 'error', message: e.message });
    throw e;
  } finally {
    ac.dispose();
  }
}

/**
 * `simulate RUN.json`: a saved run is simulated again from its resolved profile. A run that
 * replayed a trace (pool.load.source 'trace') is refused without --trace: its profile holds the
 * workload, not the trace (the run's pool.load.trace records it), so it would draw the workload
 * instead (334f29c's "not done"); the refusal names the flags that replay the same trace.
 * @throws UsageError (exit 2) for such a run without --trace.
 */
function checkSavedRunTrace(file: string, run: RunResult, flags: SimulateFlags): void {
  const load = run.pool?.load;
  // A run of a profile whose workload.trace names the trace: its profile replays it again.
  if (load?.source !== 'trace' || flags.trace !== undefined || run.profile.workload?.trace) return;
  const t = load.trace;
  // traceReplayArgs's flag-value pairs, each value quoted for a shell where it needs it (a path with spaces).
  const args = t ? traceReplayArgs(t, load.timeScale) : null;
  const flagsOf: string[] = [];
  if (args) for (let i = 0; i < args.length; i += 2) flagsOf.push(`${args[i]} ${shellQuote(args[i + 1]!)}`);
  else flagsOf.push('--trace FILE', ...(load.timeScale !== 1 ? [`--time-scale ${load.timeScale}`] : []));
  const what = t ? `the trace ${t.path} (${t.format}, time stamps in ${t.timeUnit}${load.timeScale !== 1 ? `, time scale ${formatTimeScale(load.timeScale)}` : ''})` : 'a trace';
  throw new UsageError(
    `${file} is a run that replayed ${what}; its profile holds the workload, not the trace, so alone it would draw the workload instead. To replay the same trace: attnscope simulate ${shellQuote(file)} ${flagsOf.join(' ')}`,
    false,
  );
}

/**
 * `simulate RUN.json`: the run's --time-scale (pool.load.timeScale) and SLO (pool.latency.slo, else
 * the capacity search's) where its profile does not hold them (they came from flags), so the run
 * is simulated again as it was; a flag given now wins, bound by bound. A --max-rate run's time
 * scale is its answer, not a flag: it is restored only without --max-rate now (the answer's rate
 * again). Sets `flags` in place.
 * @returns the info line naming what was restored ("restored from the run: --time-scale 1.25 …"),
 *   or null when nothing was.
 */
function restoreSavedRunFlags(run: RunResult, flags: SimulateFlags, timeScaleGiven: boolean): string | null {
  const pool = run.pool;
  const restored: string[] = [];
  const scale = pool?.load?.timeScale;
  if (!timeScaleGiven && !flags.maxRate && scale !== undefined && scale !== 1) {
    flags.timeScale = scale;
    restored.push(`--time-scale ${scale}`);
  }
  const saved = pool?.latency?.slo ?? pool?.capacity?.slo;
  const own = run.profile.slo;
  const bounds = [
    ['ttftMs', '--slo-ttft-ms'],
    ['tpotMs', '--slo-tpot-ms'],
    ['attainment', '--slo-attainment'],
  ] as const;
  for (const [k, flag] of bounds) {
    const v = saved?.[k];
    if (v === undefined || flags.slo[k] !== undefined || own?.[k] === v) continue;
    flags.slo[k] = v;
    restored.push(`${flag} ${v}`);
  }
  if (restored.length === 0) return null;
  return `restored from the run: ${restored.join(' ')} (the flags it was simulated with; a flag given now wins)`;
}

/**
 * `simulate RUN.json` replaying the file the run replayed (the same absolute path, format and
 * filters) that no longer reads as it did: the rows read as requests or the span of their
 * arrivals (as recorded, before --time-scale) differ from the run's pool.load.trace. Sweeps see
 * a changed trace by its content in the sweep id; a run records only these two. null when they
 * agree, or the run recorded no trace (or not this one).
 */
function savedTraceChange(run: RunResult, path: string, read: TraceRead): string | null {
  const t = run.pool?.load?.trace;
  if (!t || resolve(path) !== resolve(t.resolvedPath) || t.format !== read.format) return null;
  const span = arrivalSpan(read.requests.arrivalS);
  // The span as the run wrote it to JSON: a double's round trip is exact, so equal reads agree.
  const sameSpan = t.spanS === undefined || t.spanS === span;
  if (t.rowsRead === read.count && sameSpan) return null;
  const spanOf = (s: number | undefined) => (s === undefined ? '' : ` over ${formatDuration(s * 1e9)}`);
  return `the trace changed since this run: it now reads ${formatCountOf(read.count, 'row')} as requests${spanOf(span)}; the run replayed ${formatCountOf(t.rowsRead, 'row')}${spanOf(t.spanS)}`;
}

/**
 * The trace a simulation replays: --trace as given, else the profile's workload.trace — as the
 * CLI names it in its lines, joined to the profile's path as given where that path is relative
 * (`examples/traces/prod.jsonl` for `simulate examples/p.attn.yaml`), else absolute (a profile
 * on stdin, the editor's, holds the absolute path). null: no trace, the workload's requests are drawn.
 */
function traceToReplay(file: string, profile: Profile, flags: SimulateFlags): { path: string; from: '--trace' | 'workload.trace' } | null {
  if (flags.trace !== undefined) return { path: flags.trace, from: '--trace' };
  const t = profile.workload?.trace;
  if (!t) return null;
  const path = file !== '-' && profile.sourcePath !== null && !isAbsolute(t.path) && resolve(dirname(file), t.path) === resolve(t.resolvedPath) ? join(dirname(file), t.path) : resolve(t.resolvedPath);
  return { path, from: 'workload.trace' };
}

/**
 * How to read the replayed trace: the --trace-* flags, over the profile's workload.trace_time_unit,
 * trace_model and trace_log_type where the trace is the profile's (a --trace replaces the
 * profile's trace and those keys with it); each flag that replaces a key says so in a line. The
 * reader's messages name the keys for the profile's trace, the flags for --trace's.
 * @throws UsageError for a --trace-* flag with no trace to read (neither --trace nor workload.trace).
 */
function traceReadSettings(replay: ReturnType<typeof traceToReplay>, profile: Profile, flags: SimulateFlags, say: (line: string) => void): Pick<TraceReadOptions, 'timeUnit' | 'model' | 'logType' | 'settingsFrom'> {
  const given = { timeUnit: flags.traceTimeUnit, model: flags.traceModel, logType: flags.traceLogType };
  if (replay === null) {
    const flag = flags.traceFormat !== undefined ? '--trace-format' : (Object.keys(given) as Array<keyof typeof given>).filter((k) => given[k] !== undefined).map((k) => traceSetting(k))[0];
    if (flag !== undefined) throw new UsageError(`${flag} needs a trace to read: --trace FILE, or the profile's workload.trace`);
    return {};
  }
  const own = replay.from === 'workload.trace' ? profile.workload?.trace : undefined;
  // The reader's messages name what gave each setting: a flag over the profile's trace names the flag (s42 newcomer 11).
  const out: Pick<TraceReadOptions, 'timeUnit' | 'model' | 'logType' | 'settingsFrom'> = {
    settingsFrom: own ? { timeUnit: given.timeUnit !== undefined ? 'flags' : 'profile', model: given.model !== undefined ? 'flags' : 'profile', logType: given.logType !== undefined ? 'flags' : 'profile' } : 'flags',
  };
  for (const k of ['timeUnit', 'model', 'logType'] as const) {
    const flag = given[k];
    const key = own?.[k];
    if (flag !== undefined && key !== undefined && flag !== key) say(`${traceSetting(k, 'flags', flag)} replaces the profile's ${traceSetting(k, 'profile', key)}`);
    const v = flag ?? key;
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** A simulation's run (named by its profile file, else the stdin profile's source file, else 'stdin'): with its pool, or cancelled without one. */
function simulateRunOf(file: string, profile: Profile, createdAt: Date, environment: Environment, end: Pick<RunParts, 'pool' | 'status' | 'error' | 'problems'>): RunResult {
  return createRun({ name: file !== '-' ? basename(file) : profile.sourcePath ? basename(profile.sourcePath) : 'stdin', kind: 'simulate', toolVersion: toolBuild(), createdAt, profile, environment, estimate: estimate(profile), ...end });
}

/** What simulate is doing before the simulation, for the line a cancel prints ("while reading the trace"); null once simulating (that line says how far it got). */
interface SimulatePhase {
  doing: string | null;
}

async function simulateProfile(file: string, loaded: LoadedProfile, flags: SimulateFlags, io: CliIo, signal: AbortSignal, phase: SimulatePhase, saved?: RunResult): Promise<number> {
  const events = flags.events;
  const say = lineWriter(io, events);
  const emitLine = (e: RunnerEvent) => io.stdout.write(`${JSON.stringify(e)}\n`);
  const profile = loaded.profile;
  // The trace replayed: --trace, else the profile's workload.trace (the editor's runs name it so); null: the workload's draws.
  const replay = traceToReplay(file, profile, flags);
  checkOutputPath(flags.json, '--json', [
    // A saved run replayed is no profile (s53 newcomer 14: "is the profile this run reads" for cap.json).
    ...profileInputs(file, profile).map((input) => (saved && input.what === 'the profile' ? { ...input, is: 'the saved run this replays' } : input)),
    ...(replay ? [{ path: replay.path, what: replay.from === '--trace' ? 'the trace (--trace)' : 'the trace (workload.trace)' }] : []),
    ...(flags.calibrate !== undefined ? [{ path: flags.calibrate, what: 'the calibration file (--calibrate)' }] : []),
  ]);
  // How to read the trace (a --trace-* flag with none to read is refused here, before the notes).
  const read = traceReadSettings(replay, profile, flags, say);
  // --trace in place of workload.trace: the draw keys' warnings name the trace replayed, not the one replaced.
  const replaced = replay?.from === '--trace' && profile.workload?.trace ? `--trace replays ${replay.path} (in place of workload.trace ${profile.workload.trace.path})` : null;
  const problems = printNotes(replaced ? { ...loaded, problems: loaded.problems.map((p) => (p.code === 'unused-with-trace' ? { ...p, message: unusedWithTraceMessage(String(p.data!.key).replace(/^workload\./, ''), replaced) } : p)) } : loaded, say, replay !== null, true);
  if (replay && flags.trace !== undefined && profile.workload?.trace) say(`--trace ${flags.trace} replaces the profile's workload.trace ${profile.workload.trace.path}`);
  // A profile's trace that is not there (or no readable file) is the profile's mistake: said at its key.
  if (replay?.from === 'workload.trace') {
    const st = traceFileStat(replay.path);
    if ('problem' in st) throw loaded.errorAt('workload.trace', `cannot read the trace ${profile.workload!.trace!.path}: ${st.problem}`);
  }
  // The flags win over the profile's slo, bound by bound.
  const slo = { ...profile.slo, ...flags.slo };
  const hasSlo = slo.ttftMs !== undefined || slo.tpotMs !== undefined;
  if (flags.slo.attainment !== undefined && !hasSlo) throw new UsageError("--slo-attainment needs an SLO bound: --slo-ttft-ms and/or --slo-tpot-ms, or the profile's slo: { ttft_ms, tpot_ms }");
  if (flags.slo.attainment !== undefined && profile.slo?.attainment !== undefined && profile.slo.attainment !== flags.slo.attainment) say(`--slo-attainment ${flags.slo.attainment} replaces the profile's slo.attainment ${profile.slo.attainment}`);
  if (flags.maxRate && !hasSlo) throw new UsageError("--max-rate needs an SLO: --slo-ttft-ms and/or --slo-tpot-ms, or the profile's slo: { ttft_ms, tpot_ms }");
  // A scale the workload's drawn arrivals cannot take (a subnormal rate's gaps overflow), before any work; a trace's scaled span is checked once read.
  const scaleProblem = !replay && profile.workload ? workloadTimeScaleProblem(profile.workload, flags.timeScale) : null;
  if (scaleProblem) throw new UsageError(`--time-scale ${flags.timeScale}: ${scaleProblem}`, false);
  // TraceError and PoolConfigError are InputErrors: file:line:col of the trace line or profile key.
  const warnings: string[] = [];
  phase.doing = 'reading the trace';
  const mml = maxModelLenOf(profile);
  const trace = replay
    ? readTraceFile(replay.path, { format: flags.traceFormat, maxModelLen: mml.tokens, ...(mml.written ? {} : { maxModelLenSource: mml.source }), ...read, warnings })
    : undefined;
  await cancelPoint(signal);
  for (const w of warnings) say(w, 'warn');
  if (trace) {
    const dropped = Object.keys(trace.dropped).length > 0 ? `; dropped ${describeDropped(trace.dropped)}` : '';
    say(`${replay!.path}: ${trace.format} trace (${trace.timeUnit}), ${formatCountOf(trace.count, 'request')}${dropped}`);
    for (const n of trace.notes) say(`${replay!.path}: note: ${n}`);
    const changed = saved ? savedTraceChange(saved, replay!.path, trace) : null;
    if (changed) say(`${replay!.path}: warning: ${changed}`, 'warn');
  }
  let stepTime: StepTimeSpec | StepTimeModel | undefined;
  let stepTimeSource: string | undefined;
  const head: string[] = [];
  let calibrationReplay: { bench: VllmBenchResult; notes: string[] } | undefined;
  // --calibrate: this tool's own CUDA kernel timings (a bench run JSON) or a vllm bench serve result.
  phase.doing = 'calibrating';
  if (flags.calibrate) checkCalibrationFile(flags.calibrate);
  const kernelRun = flags.calibrate ? readKernelRun(flags.calibrate) : null;
  if (flags.calibrate && kernelRun) {
    let model: StepTimeModel;
    try {
      model = calibrateFromKernels(profile, kernelRun, basename(flags.calibrate));
    } catch (e) {
      if (e instanceof KernelCalibrationError) throw new InputError(e.message, flags.calibrate);
      throw e;
    }
    stepTime = model;
    head.push(...formatKernelCalibration(model, flags.calibrate), '');
  } else if (flags.calibrate) {
    let result: VllmBenchResult;
    try {
      result = readVllmResult(flags.calibrate);
      // A result of another model is fitted all the same (a name is only a hint), and said.
      const mismatch = calibrationModelMismatch(profile, result);
      if (mismatch) say(`${fileLocation(flags.calibrate, result.modelId!.line, result.modelId!.column)}: warning: ${mismatch}`, 'warn');
      // The one-step fit refuses what cannot be calibrated before any work; the refit against the
      // replay (calibrateByReplay) follows once the addon is loaded.
      calibrateStepTime(profile, result);
    } catch (e) {
      if (e instanceof RangeError) throw new InputError(e.message, flags.calibrate);
      throw e;
    }
    const replayTrace = readTraceFile(flags.calibrate, { format: 'vllm-bench', maxModelLen: referenceSeqLen(profile), warnings: [] });
    calibrationReplay = { bench: result!, notes: replayTrace.notes };
  }
  // The native part first: a missing one is said before seconds of preparation, and a reader of
  // stdout gone is seen from the start (exitOnWriteFailure asks the loaded addon only).
  loadAddon();
  await cancelPoint(signal);
  if (calibrationReplay) {
    phase.doing = 'replaying the calibration';
    // The result's own requests replayed with the fit, refitted until the replay reproduces the benchmark.
    let c;
    try {
      c = await calibrateByReplay(profile, calibrationReplay.bench, signal);
    } catch (e) {
      if (e instanceof RangeError) throw new InputError(e.message, flags.calibrate!);
      throw e;
    }
    stepTime = c.fit.spec;
    stepTimeSource = `calibration from ${basename(flags.calibrate!)}${heldParametersText(c.fit)}`;
    head.push(...formatCalibration(c.fit, flags.calibrate!, replayCaution(c)), ...formatReplayRounds(c), ...formatCalibrationReplay(c.replay, flags.calibrate!), ...calibrationReplay.notes.map((n) => `    note: ${n}`), '');
  }
  phase.doing = null;
  // A terminal shows one line rewritten in place and erased at the end; piped stderr gets nothing.
  // Under --events: a progress event per percent.
  const terminal = new Progress(io.stderr, false);
  let shownPct = -1;
  const progress = {
    /** One progress line per percent; `always`: this one too (a new phase at the same percent). */
    update(fraction: number, _total: number, message: string, always = false): void {
      if (!events) return terminal.update(fraction, 1, message);
      const pct = Math.floor(100 * fraction);
      if (pct <= shownPct && fraction > 0 && !always) return;
      shownPct = pct;
      emitLine({ type: 'progress', done: pct, total: 100, message });
    },
    clear: (): void => terminal.clear(),
  };
  let last: PoolProgress | undefined;
  let preparing: PrepareProgress | undefined;
  let pagedDone = false;
  /** The saturation run under way while μ is measured (checkKeepsUp), for a cancel's line. */
  let measuringMu: SaturationProgress | undefined;
  /** A cancel that came while μ was measured: the finished simulation is written without the keeps-up verdict, then exit 130. */
  let muCancel: CancelledError | undefined;
  /** Says where a cancel stopped the run (one line, and under --events the terminal cancelled run), nothing written: EXIT_CANCELLED. */
  const cancelled = (e: CancelledError): number => {
    const at = preparing
      ? ` while ${preparing.phase} (${formatCount(preparing.done)} of ${formatCountOf(preparing.requests, 'request')})`
      : pagedDone
        ? ` after the simulation of ${formatCountOf(last!.requests, 'request')} finished, while its contiguous-allocation baselines and summary were computed`
        : last
          ? ` at ${Math.floor(100 * last.fraction)}% of ${formatCountOf(last.requests, 'request')}`
          : '';
    io.stderr.write(cancelLine('simulate', e, at, 'nothing written'));
    // The terminal event core/protocol/runner.ts promises: a run with status 'cancelled' and no pool.
    if (events) emitLine({ type: 'done', run: simulateRun(describeMachine(), { status: 'cancelled', error: `${e.message}${at}` }) });
    return EXIT_CANCELLED;
  };
  /** Requests the KV pool can never hold (rejected; said after the run, as the max_model_len rejections are before it). */
  let tooBig: { count: number; first: Array<{ promptLen: number; outputLen: number; at: string }> } | undefined;
  let result: PoolResult;
  const createdAt = new Date();
  const simulateRun = (environment: Environment, end: Pick<RunParts, 'pool' | 'status' | 'error'>): RunResult => simulateRunOf(file, profile, createdAt, environment, { ...end, problems });
  try {
    if (flags.maxRate) {
      progress.update(0, 1, 'capacity search: first rate');
      const search = await searchCapacity(profile, {
        slo,
        tolerance: flags.rateTolerance,
        requests: trace?.requests,
        startScale: flags.timeScale,
        simulate: { stepTime, stepTimeSource, signal },
        onPoint: (p) => progress.update(0, 1, `capacity search: ${formatRequestRate(p.rate)} requests/s ${p.meets ? 'passes' : 'fails'}`),
      });
      result = search.result;
    } else {
      // Drawing the requests and loading the simulator take seconds at millions of requests: say so first, and how far they are.
      const requests = trace?.count ?? profile.workload?.requests;
      if (requests !== undefined) progress.update(0, 1, `simulating ${formatCountOf(requests, 'request')}: preparing`);
      let shownPrepare = '';
      /** When the simulator was loaded (else when the requests were drawn): the time left is reckoned from it (TimeLeft). */
      let startedAt = performance.now();
      let timeLeft = new TimeLeft();
      result = await simulatePool(profile, {
        requests: trace?.requests,
        rateScale: flags.timeScale,
        slo: hasSlo ? slo : undefined,
        stepTime,
        stepTimeSource,
        signal,
        onPrepare: (p) => {
          preparing = p;
          // The rate is the simulation's: from the end of loading on (seconds at millions of requests).
          if (p.phase === 'loading the simulator' && p.done === p.requests) {
            startedAt = performance.now();
            timeLeft = new TimeLeft();
          }
          // One line per percent of a phase (the slices come every ~50 ms). A data-parallel run has no
          // preparation phase but the draws: its dispatch is the run itself, reported by tokens as one
          // engine's (onProgress; s45 newcomer-ed N4 saw "0/100" for all of a 71 s dp 1024 run).
          const fraction = p.done / Math.max(p.requests, 1);
          const message = `simulating ${formatCountOf(p.requests, 'request')}: preparing: ${p.phase} ${Math.floor(100 * fraction)}%`;
          if (message === shownPrepare) return;
          shownPrepare = message;
          progress.update(0, 1, message);
        },
        ...(events ? { onSample: (sample: PoolSample) => emitLine({ type: 'poolSample', sample }) } : {}),
        onTimes: (packed, times) => {
          const r = poolRejections(packed, times, mml.tokens);
          // A trace's request by its line; a workload's by its place in arrival order.
          const at = (i: number) => (trace ? `${replay!.path}:${trace.lines[i]}:1` : `${file === '-' ? 'stdin' : file}: workload request ${formatCount(i + 1)} (in arrival order)`);
          tooBig = { count: r.count, first: r.first.map((i) => ({ promptLen: packed.promptLen[i], outputLen: Math.min(packed.outputLen[i], mml.tokens - packed.promptLen[i]), at: at(i) })) };
        },
        onPlan: (packed) => {
          startedAt = performance.now();
          timeLeft = new TimeLeft();
          let prompt = 0;
          let decode = 0;
          for (let i = 0; i < packed.promptLen.length; i++) {
            prompt += packed.promptLen[i];
            decode += packed.outputLen[i];
          }
          const note = simulationPlanNote(packed.promptLen.length, prompt, decode);
          if (note) {
            progress.clear();
            say(note);
          }
        },
        onProgress: (p) => {
          last = p;
          preparing = undefined;
          // The last report (fraction 1: every request done) always, though a report before it reached 100% by rounding.
          const elapsedS = (performance.now() - startedAt) / 1000;
          progress.update(p.fraction, 1, simulationProgressText(p, timeLeft.at(elapsedS, p.fraction)), p.fraction === 1);
        },
        // 100% is not the end: the baselines may still run (seconds at millions of requests); say so, lest it look hung.
        onPagedDone: () => {
          pagedDone = true;
          progress.update(1, 1, `simulating ${formatCountOf(last!.requests, 'request')}: finished; waiting for the contiguous-allocation baselines`, true);
        },
      });
      // A run whose batches were still filling at its middle arrival cannot tell from its queue whether
      // the server keeps up (core/format.ts tooShortToTell): its in-flight count grows as requests enter
      // faster than the first ones leave, overloaded or not (the example at data_parallel_size 8, 192
      // requests/s, 2,000 requests: 10.4 s of arrivals, p99 end-to-end 7 s; 546 -> 822 in flight).
      // μ tells (two to six runs of one engine, capacity.ts checkKeepsUp): the line says by which.
      // Its own line first, whole (the progress line is cut at the terminal's width, and a file gets none): the
      // measurement may take longer than the simulation (s52 newcomer: 6 requests of ~1M tokens, simulated in
      // 3.4 s, then 94 s of μ under a bar that read 100%). Then its own progress: run k of at most 6.
      // --skip-saturation: no μ, so no verdict; one note says so and what the measurement would cost (its JSON: no
      // saturatedRequestsPerSec, no keepsUp: not measured, as the run schema leaves what a run did not measure).
      if (result.load && tooShortToTell(result.load, result.summary.requests) && flags.skipSaturation) {
        progress.clear();
        say(skippedSaturationNote(saturationRequests(profile), SATURATION_MAX_RUNS));
      } else if (result.load && tooShortToTell(result.load, result.summary.requests)) {
        progress.clear();
        say(muMeasureNote(saturationRequests(profile), SATURATION_MAX_RUNS));
        measuringMu = { run: 1, maxRuns: SATURATION_MAX_RUNS, progress: { fraction: 0, finished: 0, requests: 0, clockSeconds: 0, prefilledTokens: 0, decodedTokens: 0, tokensToDo: 0 } };
        let runStartedAt = performance.now();
        let runTimeLeft = new TimeLeft();
        try {
          await checkKeepsUp(profile, result, {
            requests: trace?.requests,
            simulate: { stepTime, stepTimeSource, signal },
            onRun: (p) => {
              if (p.run !== measuringMu!.run) {
                runStartedAt = performance.now();
                runTimeLeft = new TimeLeft();
              }
              measuringMu = p;
              const elapsedS = (performance.now() - runStartedAt) / 1000;
              progress.update(p.progress.fraction, 1, muProgressText(p, runTimeLeft.at(elapsedS, p.progress.fraction)), p.progress.fraction === 0);
            },
          });
        } catch (e) {
          if (!(e instanceof CancelledError)) throw e;
          muCancel = e;
        }
      }
    }
  } catch (e) {
    progress.clear();
    // The simulator places its refusal in the profile's absolute path: say it as the user typed it, as every other line does.
    if (e instanceof PoolConfigError && file !== '-' && e.file === profile.sourcePath) throw new PoolConfigError(e.key, e.message, file, e.line, e.column);
    if (e instanceof ArrivalSpanError && !flags.maxRate) throw new UsageError(`--time-scale ${flags.timeScale}: ${e.message}; use a larger --time-scale`, false);
    if (e instanceof RangeError && flags.maxRate) throw new UsageError(e.message, false);
    if (!(e instanceof CancelledError)) throw e;
    return cancelled(e);
  }
  progress.clear();
  if (tooBig && tooBig.count > 0) {
    // README: as the max_model_len rejections, the first three by where they are, then a count.
    const watermark = Math.floor(WATERMARK * result.numPages);
    const pool = `the KV pool of ${formatCountOf(result.poolTokens ?? result.numPages * result.pageSize, 'token')} (${formatCountOf(result.numPages, 'page')} of ${formatCount(result.pageSize)}${watermark > 0 ? `, ${formatCount(watermark)} of them kept free as the ${formatPercent(WATERMARK, 0)} watermark` : ''})`;
    for (const r of tooBig.first) say(`${r.at}: warning: prompt ${formatCount(r.promptLen)} + output ${formatCount(r.outputLen)} tokens can never fit in ${pool}: the request is rejected`, 'warn');
    if (tooBig.count > tooBig.first.length) say(`${trace ? fileLocation(replay!.path, 1, 1) : file === '-' ? 'stdin' : file}: warning: ${formatCount(tooBig.count)} requests in all can never fit in ${pool} and are rejected`, 'warn');
  }
  // The run names the trace it replayed (PoolLoad.trace): the profile's workload draws were not used.
  if (trace && result.load) {
    const filters = { ...(read.model !== undefined ? { model: read.model } : {}), ...(read.logType !== undefined ? { logType: read.logType } : {}) };
    result.load.trace = traceReplay(trace, replay!.from === '--trace' ? flags.trace! : profile.workload!.trace!.path, replay!.from, resolve(replay!.path), filters);
  }
  const machine = describeMachine();
  if (machine.nativeBuild === 'wasm') head.push(`Simulated by the WebAssembly module (${machine.nativeBuildReason ?? 'ATTNSCOPE_BACKEND=wasm'})`, '');
  head.push(...wrapLine(`Scheduler limits: ${batchLimitsText(profile)}, max_model_len ${formatCount(mml.tokens)} (${mml.source})`, { keepUnits: true }));
  // A SIGTERM that came after the simulation's last checkpoint (while the warnings above were made) is honoured before
  // anything is written (the cancel test's signal at the paged run's end lost this race once at load ~2, s44 CI).
  // One that stopped the measurement of μ was: the simulation is whole, written without the keeps-up verdict.
  if (muCancel) {
    io.stderr.write(cancelLine('simulate', muCancel, ` while measuring the saturated throughput μ (run ${measuringMu!.run} of at most ${measuringMu!.maxRuns}), after the simulation of ${formatCountOf(result.summary.requests, 'request')} finished`,
      'the simulation is written without the keeps-up verdict (its Load line says it cannot tell)'));
  } else {
    try {
      await cancelPoint(signal);
    } catch (e) {
      if (!(e instanceof CancelledError)) throw e;
      return cancelled(e);
    }
  }
  // The run file holds the $ per 1M output tokens the table prints (s44 newcomer44 LOW-8).
  const cost = poolCost(result, profile.device.gpuHourUsd, deployedGpuCount(profile.device));
  if (cost) result.cost = cost;
  const run = flags.json || events ? simulateRun(machine, { pool: result }) : null;
  if (flags.json) writeOutput(flags.json, `${JSON.stringify({ ...run, origin: 'cli' }, null, 2)}\n`, '--json', io.stdout);
  if (events) {
    for (const line of head) if (line !== '') say(line);
    emitLine({ type: 'done', run: run! });
    return muCancel ? EXIT_CANCELLED : EXIT_OK;
  }
  const at = result.capacity?.maxRate === null ? 'At the lowest rate tried, which misses the SLO too:' : 'At the highest passing rate:';
  const summary = formatPoolSummary(result, profile.device, { explain: flags.explain });
  const body = result.capacity ? `${formatCapacity(result.capacity, profile.device.dataParallelSize)}\n\n${at}\n${summary}` : summary;
  // --json /dev/stdout: stdout holds the JSON alone, the table goes to stderr.
  (namesStdout(flags.json) ? io.stderr : io.stdout).write(`${wrapLongLines([...head, body].join('\n'))}\n`);
  if (muCancel) return EXIT_CANCELLED;
  // An SLO question answered no exits 3 after the output is written (README "Exit codes"; --events: the run's verdict, exit 0).
  const missed = sloMissedLine(result);
  if (missed) {
    io.stderr.write(`attnscope: ${missed}\n`);
    return EXIT_SLO_MISSED;
  }
  return EXIT_OK;
}

async function vllmLogCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(argv, { profile: { type: 'string' }, startup: { type: 'string' }, json: { type: 'boolean', default: false } });
  const profile = values.profile as string | undefined;
  const file = fileOfJsonFlagCommand(positionals, values.json === true, 'vllm-log', profile !== undefined ? ` --profile ${profile}` : '');
  const startupText = values.startup as string | undefined;
  if (startupText !== undefined && !/^[1-9]\d{0,8}$/.test(startupText)) throw new UsageError(`--startup must be a whole number >= 1 (which start-up of the log to read), got '${startupText}'`);
  const { stdout, notes } = vllmLogReport(file, profile, values.json === true, startupText === undefined ? undefined : Number(startupText));
  for (const n of notes) io.stderr.write(`${n}\n`);
  io.stdout.write(values.json === true ? stdout : wrapLongLines(stdout));
  return EXIT_OK;
}

/**
 * `attnscope trace FILE [--trace-format F] [--trace-time-unit U] [--trace-model M] [--trace-log-type T] [--profile-keys] [--json]`: reads a trace with simulate's readers
 * (every row checked; a bad one is `file:line:col: message`, exit 2) and says what it holds
 * (core/protocol/run.ts TraceSummary; --json: a TraceFile, the header and kind 'trace' first): format, requests, span of the arrivals, mean prompt and
 * output tokens. The language server runs it (--json) on a profile's workload.trace, off its own
 * thread, for the key's diagnostic and hover (server/traceCheck.ts).
 */
function traceCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parse(argv, {
    'trace-format': { type: 'string' }, 'trace-time-unit': { type: 'string' }, 'trace-model': { type: 'string' }, 'trace-log-type': { type: 'string' },
    'profile-keys': { type: 'boolean', default: false }, json: { type: 'boolean', default: false },
  });
  const file = onePositional(positionals, 'trace');
  const format = values['trace-format'] as string | undefined;
  if (format !== undefined && !(TRACE_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--trace-format must be one of ${TRACE_FORMATS.join(', ')}, got '${format}'`);
  const unit = values['trace-time-unit'] as string | undefined;
  if (unit !== undefined && !(unit in TRACE_TIME_UNIT_SECONDS)) throw new UsageError(`--trace-time-unit must be ${Object.keys(TRACE_TIME_UNIT_SECONDS).join(' or ')} (the unit of the trace's time stamps), got '${unit}'`);
  const warnings: string[] = [];
  const read = readTraceFile(file, {
    format: format as TraceFormat | undefined, maxModelLen: MAX_TRACE_TOKENS, warnings,
    timeUnit: unit as TraceTimeUnit | undefined, model: values['trace-model'] as string | undefined, logType: values['trace-log-type'] as string | undefined,
    // The editor's check of a profile's workload.trace: its messages name the profile's keys.
    settingsFrom: values['profile-keys'] === true ? 'profile' : 'flags',
  });
  const summary = traceSummary(read);
  for (const w of warnings) io.stderr.write(`${w}\n`);
  // One line (the language server parses it: server/traceCheck.ts), opening with the header every JSON file AttnScope writes has.
  const json = (): TraceFile => ({ ...runHeader(basename(file), toolBuild()), kind: 'trace', ...summary });
  if (values.json === true) writeData(io.stdout, `${JSON.stringify(json())}\n`);
  else io.stdout.write(`${file}: ${formatTraceSummary(summary)}\n${read.notes.map((n) => `${file}: note: ${n}\n`).join('')}`);
  return EXIT_OK;
}

/** What a trace read holds (TraceSummary): its requests' count, arrival span and mean lengths. */
function traceSummary(read: TraceRead): TraceSummary {
  const { arrivalS, promptLen, outputLen } = read.requests;
  let prompt = 0;
  let output = 0;
  for (let i = 0; i < promptLen.length; i++) {
    prompt += promptLen[i]!;
    output += outputLen[i]!;
  }
  const n = Math.max(read.count, 1);
  return { format: read.format, timeColumn: read.timeColumn, timeUnit: read.stampUnit, requests: read.count, spanS: arrivalSpan(arrivalS), meanPromptTokens: prompt / n, meanOutputTokens: output / n, dropped: read.dropped };
}

/** The commands `main` runs (the names its switch handles). */
const COMMANDS = ['bench', 'estimate', 'simulate', 'trace', 'sweep', 'merge', 'submit', 'vllm-log', 'help'] as const;

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'bench':
        return await benchCommand(rest, io);
      case 'estimate':
        return await estimateCommand(rest, io);
      case 'simulate':
        return await simulateCommand(rest, io);
      case 'sweep':
        return await sweepCommand(rest);
      case 'merge':
        return await mergeCommand(rest);
      case 'submit':
        return await submitCommand(rest);
      case 'vllm-log':
        return await vllmLogCommand(rest, io);
      case 'trace':
        return traceCommand(rest, io);
      case '--version':
      case '-v':
        io.stdout.write(`attnscope ${toolBuild()}\n`);
        return EXIT_OK;
      case 'help':
        // `attnscope help simulate` is `attnscope simulate --help` (s40 newcomer 16: it printed the global usage).
        if (rest[0] !== undefined && rest[0] !== 'help') return await main([rest[0], '--help'], io);
        io.stdout.write(`${wrapHelp(USAGE)}\n`);
        return EXIT_OK;
      case '--help':
      case '-h':
        io.stdout.write(`${wrapHelp(USAGE)}\n`);
        return EXIT_OK;
      default:
        if (!command) throw new UsageError('no command given');
        {
          // The closest command, as for unknown flags (runner/args.ts: closestMatch).
          // A mistyped global flag (--verison) gets the same help: `--version`, `--help` are its candidates.
          const near = closestMatch(command, command.startsWith('-') ? ['--version', '--help'] : COMMANDS);
          throw new UsageError(`unknown command '${command}'${near !== undefined ? `: did you mean ${near}?` : ''}`);
        }
    }
  } catch (e) {
    if (e instanceof InputError) {
      io.stderr.write(`${e.format()}\n`);
      return EXIT_BAD_INPUT;
    }
    // Kernels that cannot run here (no such GPU; neither the native addon nor the WebAssembly module): one line, exit 2.
    if (e instanceof BackendError || e instanceof NativeMissingError) {
      io.stderr.write(`attnscope: ${e.message}\n`);
      return EXIT_BAD_INPUT;
    }
    if (e instanceof UsageError) {
      // One line, as every argument error: the usage is one --help away.
      const known = command !== undefined && commandUsage(command) !== undefined;
      io.stderr.write(e.showUsage ? `attnscope: ${e.message} (see attnscope ${known ? `${command} ` : ''}--help)\n` : `attnscope: ${e.message}\n`);
      return EXIT_BAD_INPUT;
    }
    if (e instanceof CancelledError) return EXIT_CANCELLED;
    if (e instanceof HelpRequest) {
      const usage = command !== undefined ? commandUsage(command) : undefined;
      const flags = usage && e.options && Object.keys(e.options).length > 0 ? `\n\nflags:\n${flagLines(command!, e.options).join('\n')}` : '';
      const exits = usage ? exitStatusLines(command!).map((l) => `\n${l}`).join('') : '';
      const examples = usage ? exampleLines(command!).map((l) => `\n${l}`).join('') : '';
      io.stdout.write(`${wrapHelp(usage ?? USAGE)}${flags}${exits}${examples}\n`);
      return EXIT_OK;
    }
    if (e instanceof OutputError) {
      io.stderr.write(`attnscope: ${e.message}\n`);
      return EXIT_INTERNAL;
    }
    io.stderr.write(`attnscope: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT_INTERNAL;
  }
}

/** Exit status of a run whose standard output's reader went away (EPIPE): a process killed by SIGPIPE's, 128 + 13. */
const EXIT_SIGPIPE = 141;

/**
 * Ends the process when a write to standard output or error fails, where Node printed an
 * unhandled 'error' event with its stack: a full disk (`> report.txt`, `> /dev/full`) is one line
 * on stderr and exit 1; a reader gone (`| head -1`: EPIPE, Node ignores SIGPIPE so the write
 * fails instead) ends the run at once, silent, with {@link EXIT_SIGPIPE} as a process killed by
 * SIGPIPE would. A simulation in flight is stopped first (exiting in the middle of its slice
 * would abort the process). A reader gone is noticed at the next write, or, when stdout is a pipe
 * or socket, within {@link READER_CHECK_MS} of the event loop's turns (a simulation turns it
 * between slices): a plain simulate writes its table only at the end, and would run to it.
 */
function exitOnWriteFailure(): void {
  let failed = false;
  const onError = (stream: 'stdout' | 'stderr') => (e: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    clearInterval(readerCheck);
    if (e.code !== 'EPIPE' && stream === 'stdout') process.stderr.write(`attnscope: cannot write to standard output: ${writeFailure(e)}\n`);
    void stopSimulations().finally(() => process.exit(e.code === 'EPIPE' ? EXIT_SIGPIPE : EXIT_INTERNAL));
  };
  process.stdout.on('error', onError('stdout'));
  process.stderr.on('error', onError('stderr'));
  // Unreferenced: it keeps no run alive. outputReaderGone is false until a command has loaded the addon.
  const piped = (() => {
    try {
      const st = fstatSync(1);
      return st.isFIFO() || st.isSocket();
    } catch {
      return false;
    }
  })();
  const readerCheck = piped
    ? setInterval(() => {
        if (outputReaderGone(1)) onError('stdout')(Object.assign(new Error('the reader of standard output has gone'), { code: 'EPIPE' }));
      }, READER_CHECK_MS).unref()
    : undefined;
}

/** How often a piped standard output is checked for a reader gone (exitOnWriteFailure). */
const READER_CHECK_MS = 100;

if (require.main === module) {
  exitOnWriteFailure();
  // --events' NDJSON on stdout stays UTF-8: the editor reads it, whatever the shell's locale.
  localeOutput(process.argv.includes('--events') ? [process.stderr] : [process.stdout, process.stderr]);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`attnscope: internal error: ${String(e)}\n`);
      process.exitCode = EXIT_INTERNAL;
    },
  );
}
