/**
 * The flags of `attnscope simulate` beyond the profile (README "CLI"), parsed and checked before
 * any work: the trace and how to read it, the SLO, the capacity search, the calibration.
 */
import type { ParseArgsConfig } from 'node:util';
import type { LatencySlo } from '../../core/protocol/latency';
import { beyondFloatRange, DECIMAL_NUMBER } from '../args';
import { UsageError } from '../errors';
import { TRACE_FORMATS, TRACE_TIME_UNIT_SECONDS, type TraceFormat, type TraceTimeUnit } from './traces';

/** node:util parseArgs options of `simulate`. */
export const SIMULATE_FLAGS = {
  trace: { type: 'string' },
  'trace-format': { type: 'string' },
  'trace-model': { type: 'string' },
  'trace-log-type': { type: 'string' },
  'trace-time-unit': { type: 'string' },
  'time-scale': { type: 'string' },
  json: { type: 'string' },
  'slo-ttft-ms': { type: 'string' },
  'slo-tpot-ms': { type: 'string' },
  'max-rate': { type: 'boolean', default: false },
  'skip-saturation': { type: 'boolean', default: false },
  'rate-tolerance': { type: 'string' },
  'slo-attainment': { type: 'string' },
  calibrate: { type: 'string' },
  events: { type: 'boolean', default: false },
  explain: { type: 'boolean', default: false },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export interface SimulateFlags {
  trace?: string;
  traceFormat?: TraceFormat;
  traceModel?: string;
  traceLogType?: string;
  /** The unit of the trace's numeric time stamps, when not its format's own. */
  traceTimeUnit?: TraceTimeUnit;
  /** Load multiplier (2 = twice the rate). */
  timeScale: number;
  json?: string;
  /** Bounds and attainment given on the command line (each wins over the profile's). */
  slo: LatencySlo;
  maxRate: boolean;
  /**
   * Leave out the measurement of the saturated throughput μ that a run too short for its queue to
   * tell whether the server keeps up otherwise gets (core/format.ts tooShortToTell; up to
   * capacity.ts SATURATION_MAX_RUNS simulations of saturationRequests, most of the CPU for a few
   * huge requests: s52, 27 s of 27 s for six ~1M-token requests). The run then has no keeps-up
   * verdict: PoolLoad.saturatedRequestsPerSec and keepsUp absent (not measured), its Load line
   * "Cannot tell". Not with --max-rate, whose search judges each rate by μ.
   */
  skipSaturation: boolean;
  rateTolerance?: number;
  calibrate?: string;
  /** NDJSON RunnerEvents on stdout instead of the text summary (the editor's "Run serving simulation"). */
  events: boolean;
  /** Print the step-time model's derivation (StepTimeModel.source) under its formula; --json always holds it. */
  explain: boolean;
}

/** The SLO bound flags simulate and sweep share, each wins over the profile's slo (milliseconds, > 0). */
export const SLO_BOUND_FLAGS = ['slo-ttft-ms', 'slo-tpot-ms'] as const;

/**
 * --slo-ttft-ms and --slo-tpot-ms as numbers of milliseconds, each only when given; `text` keeps each as the user
 * wrote it (a sweep passes it on as an axis value, runner/sweep/cli.ts). One reading for simulate and sweep.
 * @throws UsageError naming the flag and the bad value: a positive decimal number of milliseconds is wanted.
 */
export function readSloBoundFlags(values: Record<string, unknown>): { ttftMs?: number; tpotMs?: number; text: Partial<Record<(typeof SLO_BOUND_FLAGS)[number], string>> } {
  const what = 'a positive number of milliseconds';
  const out: { ttftMs?: number; tpotMs?: number; text: Partial<Record<(typeof SLO_BOUND_FLAGS)[number], string>> } = { text: {} };
  for (const k of SLO_BOUND_FLAGS) {
    const v = values[k];
    if (typeof v !== 'string') continue;
    // Decimal only, as a profile writes numbers (Number() would also read "0x10" and " 5").
    if (!DECIMAL_NUMBER.test(v)) throw new UsageError(`--${k} must be ${what}, got '${v}'`);
    const far = beyondFloatRange(v);
    if (far) throw new UsageError(`--${k} ${far}: it must be ${what}`);
    const x = Number(v);
    if (!(Number.isFinite(x) && x > 0)) throw new UsageError(`--${k} must be ${what}, got '${v}'`);
    out.text[k] = v;
    if (k === 'slo-ttft-ms') out.ttftMs = x;
    else out.tpotMs = x;
  }
  return out;
}

/** @throws UsageError naming the flag and the bad value. */
export function readSimulateFlags(values: Record<string, string | boolean | undefined>): SimulateFlags {
  const str = (k: string) => values[k] as string | undefined;
  const num = (k: string, ok: (x: number) => boolean, what: string): number | undefined => {
    const v = str(k);
    if (v === undefined) return undefined;
    // Decimal only, as a profile writes numbers (Number() would also read "0x10" and " 5").
    if (!DECIMAL_NUMBER.test(v)) throw new UsageError(`--${k} must be ${what}, got '${v}'`);
    const far = beyondFloatRange(v);
    if (far) throw new UsageError(`--${k} ${far}: it must be ${what}`);
    const x = Number(v);
    if (!ok(x)) throw new UsageError(`--${k} must be ${what}, got '${v}'`);
    return x;
  };
  const positive = (x: number) => Number.isFinite(x) && x > 0;
  const format = str('trace-format');
  if (format !== undefined && !(TRACE_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--trace-format must be one of ${TRACE_FORMATS.join(', ')}, got '${format}'`);
  const unit = str('trace-time-unit');
  const units = Object.keys(TRACE_TIME_UNIT_SECONDS);
  if (unit !== undefined && !units.includes(unit)) throw new UsageError(`--trace-time-unit must be ${units.join(' or ')} (the unit of the trace's time stamps), got '${unit}'`);
  const flags: SimulateFlags = {
    trace: str('trace'),
    traceFormat: format as TraceFormat | undefined,
    traceModel: str('trace-model'),
    traceLogType: str('trace-log-type'),
    traceTimeUnit: unit as TraceTimeUnit | undefined,
    timeScale: num('time-scale', positive, 'a positive number (2 = replay at twice the rate)') ?? 1,
    json: str('json'),
    slo: {},
    maxRate: values['max-rate'] === true,
    skipSaturation: values['skip-saturation'] === true,
    rateTolerance: num('rate-tolerance', (x) => x > 0 && x < 1, 'a fraction in (0, 1), e.g. 0.02'),
    calibrate: str('calibrate'),
    events: values['events'] === true,
    explain: values['explain'] === true,
  };
  const bounds = readSloBoundFlags(values);
  if (bounds.ttftMs !== undefined) flags.slo.ttftMs = bounds.ttftMs;
  if (bounds.tpotMs !== undefined) flags.slo.tpotMs = bounds.tpotMs;
  const attainment = num('slo-attainment', (x) => x > 0 && x <= 1, 'a fraction in (0, 1], e.g. 0.99');
  if (attainment !== undefined) flags.slo.attainment = attainment;
  // Settings of the capacity search, which would otherwise be read and do nothing.
  for (const k of ['rate-tolerance'] as const) if (str(k) !== undefined && !flags.maxRate) throw new UsageError(`--${k} sets the capacity search: it needs --max-rate`);
  if (flags.skipSaturation && flags.maxRate) throw new UsageError('--skip-saturation leaves out the saturated throughput μ, which --max-rate judges each rate by: give one of the two');
  return flags;
}
