/**
 * The first profile of a workspace: what "AttnScope: New profile…" writes for a model's
 * config.json and a GPU (s40 newcomer-ed: nothing in the editor said how to begin; the README's
 * example was reachable only through the CLI quick start). No `vscode` import: the command in
 * extension/commands.ts asks for the config, the GPU and the file; this module writes the text,
 * and test/extension/newProfile.test.ts reads it back.
 */
import { dirname, relative, sep } from 'node:path';
import { stringify } from 'yaml';
import { defaultDtype, readProfile, type ProfileHost } from '../core/config/index';
import type { ModelSpec, Problem, Profile } from '../core/config/types';
import { tensorParallelSizes, vllmDefaultPageSize } from '../core/estimate/checks';
import { checkProfile, estimate } from '../core/estimate/index';
import { vllmMaxModelLen } from '../core/estimate/maxModelLen';
import { formatAttainmentTarget, formatBytesApart, formatCount, formatDuration, formatPercent, requestRateDown, sloNearIdleNote } from '../core/format';
import { SLO_ATTAINMENT_DEFAULT, type CapacityCurve } from '../core/protocol/latency';
import type { PoolResult } from '../core/protocol/run';

/** What the user chose. */
export interface NewProfileChoice {
  /** Absolute path of the profile to write (`*.attn.yaml`). */
  profilePath: string;
  /** Absolute path of the model's config.json. */
  configPath: string;
  /** `device.gpu`: a name of core/estimate/gpus.ts GPUS. */
  gpu: string;
}

/** The profile to write, or why none can be. */
export type NewProfile =
  | {
      text: string;
      /** The tensor_parallel_size written: the smallest of the model's that serves (below). */
      tensorParallelSize: number;
      /** One sentence for the notification: why that tp, and what the file's hints show. */
      note: string;
      /**
       * Every tensor_parallel_size from the one written up to 8 whose profile holds the weights and
       * one max_model_len sequence, smallest first, each with its text and profile as read back:
       * what {@link servingTensorParallel} simulates. Empty when none does.
       */
      fitting: FittingProfile[];
      /**
       * Why each tensor_parallel_size below the smallest in `fitting` was not written, one clause a
       * size ("at 1 the weights, 87 GiB a GPU, exceed 71.3 GiB usable"); the serving check puts it
       * before its verdict on the written size's line. Absent when the smallest size the model takes fits.
       */
      smaller?: string;
    }
  | { error: string };

/** One tensor_parallel_size whose profile fits the GPUs' memory (NewProfile.fitting). */
export interface FittingProfile {
  tensorParallelSize: number;
  /** device.pipeline_parallel_size written: 1, or the stages the weights need where no tp up to 8 holds them. */
  pipelineParallelSize?: number;
  text: string;
  /** The text read back through the one profile loader: what the runner's `simulate -` takes on stdin. */
  profile: Profile;
}

/** The largest tensor_parallel_size tried: one 8-GPU node, as vLLM deployments without pp run. */
const MAX_TP = 8;
/** workload.max_model_len when the model allows more: a chat load's, as the shipped example's. */
const CHAT_MAX_MODEL_LEN = 8192;

/**
 * The profile for `choice`, read back through the one profile loader and the estimate: the
 * tensor_parallel_size written is the smallest the model takes (core/estimate/checks.ts
 * tensorParallelSizes; up to 8) at which the profile has no error and neither
 * `weights-exceed-device` nor a pool too small for one max_model_len sequence; when none up to 8
 * does, 8's profile is written and its own warning says what would fit. `fitting` lists every
 * such size, for the serving check ({@link servingTensorParallel}) that then picks among them.
 * `error` when the config does not read as a model (its first error, as the CLI prints it).
 */
export function newProfile(choice: NewProfileChoice, host: ProfileHost): NewProfile {
  const first = readProfile(profileText(choice, 1, null), choice.profilePath, host);
  if (!first.value) {
    const e = first.problems.find((p) => p.severity === 'error') ?? first.problems[0];
    return { error: e?.message ?? 'the config does not describe a model' };
  }
  const model = first.value.model;
  const derived = vllmMaxModelLen(model).tokens;
  const maxModelLen = Math.min(derived, CHAT_MAX_MODEL_LEN);
  const sizes = tensorParallelSizes(model).filter((t) => t <= MAX_TP);
  const candidates = sizes.length > 0 ? sizes : [1];
  const dtype = dtypeLines(model);
  const serves = (tp: number, pp = 1): { text: string; profile: Profile | null; blocked?: Problem } => {
    const text = profileText(choice, tp, { maxModelLen, derived }, vllmDefaultPageSize(model, choice.gpu), pp, dtype);
    const read = readProfile(text, choice.profilePath, host);
    if (!read.value || read.problems.some((p) => p.severity === 'error')) return { text, profile: null, blocked: read.problems.find((p) => p.severity === 'error') };
    const problems = checkProfile(read.value, estimate(read.value));
    const blocking = new Set(['weights-exceed-device', 'pool-below-max-model-len', 'kv-pool-empty']);
    const blocked = problems.find((p) => p.severity === 'error' || blocking.has(p.code));
    return { text, profile: blocked ? null : read.value, blocked };
  };
  const fitting: FittingProfile[] = [];
  // Why each size below the smallest that fits does not (s47 newcomer-ed F9: Mixtral on H100 SXMs
  // got tp 2 with no word on 1, whose 87 GiB of weights exceed 71.3 GiB usable).
  const notFitting: Array<{ tp: number; blocked: Problem | undefined }> = [];
  for (const tp of candidates) {
    const r = serves(tp);
    if (r.profile) fitting.push({ tensorParallelSize: tp, text: r.text, profile: r.profile });
    else if (fitting.length === 0) notFitting.push({ tp, blocked: r.blocked });
  }
  const smallest = fitting[0];
  if (smallest) {
    const tp = smallest.tensorParallelSize;
    const smaller = notFitting.length > 0 ? whyNot(notFitting, maxModelLen) : undefined;
    const why = tp === 1 ? `one ${choice.gpu} holds its weights and one ${formatCount(maxModelLen)}-token sequence` : `the smallest tensor_parallel_size at which ${choice.gpu}s hold its weights and one ${formatCount(maxModelLen)}-token sequence`;
    return { text: smaller ? commentTpLine(smallest.text, smaller) : smallest.text, tensorParallelSize: tp, note: `tensor_parallel_size ${tp}: ${why}${smaller ? ` (${smaller})` : ''}.`, fitting, ...(smaller ? { smaller } : {}) };
  }
  const tp = candidates.at(-1)!;
  // No tp up to 8 holds it (s42 newcomer-ed F2: DeepSeek-V3 on H100 SXMs got tp 8, 79.5 GiB of
  // weights per GPU over 71.3, 0 pages, no comment): the tp × pp the weights diagnostic computes
  // (Estimate.weightsFit: pipeline_parallel_size at this tp, or the pair on the fewest GPUs), the
  // one on fewer GPUs, when its pool also holds one max_model_len sequence.
  const largest = serves(tp);
  const read = readProfile(largest.text, choice.profilePath, host).value;
  const fit = read ? estimate(read).weightsFit : undefined;
  const pairs: Array<[number, number]> = [
    ...(fit?.pipelineParallelSize !== undefined ? [[tp, fit.pipelineParallelSize] as [number, number]] : []),
    ...(fit?.pair ? [[fit.pair.tensorParallelSize, fit.pair.pipelineParallelSize] as [number, number]] : []),
  ].sort(([t1, p1], [t2, p2]) => t1 * p1 - t2 * p2);
  for (const [t, p] of pairs) {
    const r = serves(t, p);
    if (!r.profile) continue;
    return {
      text: r.text,
      tensorParallelSize: t,
      note: `tensor_parallel_size ${t} × pipeline_parallel_size ${p}: no tensor_parallel_size up to ${tp} holds its weights on ${choice.gpu}s; these ${t * p} GPUs hold them and one ${formatCount(maxModelLen)}-token sequence (the weights diagnostic's fewest GPUs).`,
      fitting: [{ tensorParallelSize: t, pipelineParallelSize: p, text: r.text, profile: r.profile }],
    };
  }
  return {
    text: commentTpLine(largest.text, `no tensor_parallel_size up to ${tp}, nor a tp × pp pair the warning names, holds the weights and one ${formatCount(maxModelLen)}-token sequence on ${choice.gpu}s: see the warning`),
    tensorParallelSize: tp,
    note: `no tensor_parallel_size up to ${tp} serves it on ${choice.gpu}s: the file's warning says what would (pipeline_parallel_size, a larger GPU or memory_gib).`,
    fitting,
  };
}

/** What one simulation of a fitting profile's own workload said (modelled, the runner's `simulate`). */
export interface ServingTry {
  tensorParallelSize: number;
  /** The waiting queue grew through the run (PoolLoad.overloaded): the server did not keep up. */
  overloaded: boolean;
  /** Fraction of all requests that met the SLO (LatencySummary.sloAttainment); null when the run judged none. */
  attainment: number | null;
  /** The fraction the profile's slo asks (slo.attainment, else SLO_ATTAINMENT_DEFAULT 0.9). */
  target: number;
  /** p99 TTFT, seconds; null when no request completed. */
  p99TtftS: number | null;
  /** Kept up and met the SLO. */
  serves: boolean;
}

/** The profile to write after the serving check. */
export interface ServingChoice {
  text: string;
  tensorParallelSize: number;
  note: string;
  /** The simulations run, in order (empty when none fit, or the first was stopped). */
  tries: ServingTry[];
}

/**
 * The serving check of "New profile…" (s41 newcomer-ed F1: Llama-3.1-70B on H100 SXMs got tp 2,
 * whose own simulation was overloaded, TTFT p99 4.5 min, 2.8 % meeting the SLO): each of
 * `made.fitting`, smallest tensor_parallel_size first, is simulated with `simulate` (the runner's
 * one `simulate`, in a child process in the editor) until one keeps up (not
 * PoolLoad.overloaded) and meets its SLO (sloAttainment ≥ slo.attainment, default 0.9); that
 * one is written, with a comment on its tensor_parallel_size line naming the smaller one that
 * held the weights but did not serve the load. When none up to 8 serves it, the largest is
 * written with a comment saying so, and `maxRate` (the runner's capacity search, `simulate
 * --max-rate`, runner/simulate/capacity.ts: one search, on that size only) finds the highest
 * arrival_rate it serves within the SLO, which is written (rounded down to 3 digits) in place of
 * the one asked, with a comment; without `maxRate`, or when the search finds none, the comment
 * says what would (a lower arrival_rate, data_parallel_size). When a size serves, `maxRate` on it
 * adds to its comment the highest rate it serves (one search, on the size written). The largest
 * size, searched whichever way its check ends, is not simulated on its own: its verdict is read off
 * the search's first point, the asked rate (CapacityPoint overloaded, sloAttainment, p99TtftS),
 * which the search simulates first (s43: the no-fit branch simulated that rate twice).
 * The size written carries its verdict as a comment on its line, whichever way the check ended.
 * `simulate` resolves with the run's pool, null when the user cancelled (then nothing is to be
 * written: the result is null; s42 newcomer-ed F1, Cancel had written tp 2, already simulated as
 * failing, with no comment), or a sentence saying why there is no pool (the runner failed): then
 * the memory choice is written with a comment saying the check stopped there and on what.
 */
export async function servingTensorParallel(
  made: { text: string; tensorParallelSize: number; note: string; fitting: FittingProfile[]; smaller?: string },
  simulate: (f: FittingProfile) => Promise<PoolResult | string | null>,
  maxRate?: (f: FittingProfile) => Promise<PoolResult | string | null>,
): Promise<ServingChoice | null> {
  const tries: ServingTry[] = [];
  const said = (t: ServingTry): string =>
    t.overloaded
      ? `overloaded, ${formatPercent(t.attainment)} of requests meeting the SLO`
      : `${formatPercent(t.attainment)} meeting the SLO (${formatAttainmentTarget(t.target)} asked), TTFT p99 ${t.p99TtftS === null ? '—' : formatDuration(t.p99TtftS * 1e9)}`;
  // The largest size is searched whatever its verdict (served: how far it goes; not: the highest
  // rate it serves), and the search's first rate is the one asked (scale 1): that point is the
  // size's simulation, read off it rather than run again (askedRateRun). Without an SLO bound the
  // search refuses to run (capacity.ts searchCapacity): then the size is simulated as the others.
  let lastSearch: PoolResult | string | undefined;
  // Each verdict on the written size's line, after why the sizes below the smallest that fits do not (NewProfile.smaller).
  const commentTensorParallel = (text: string, comment: string) => commentTpLine(text, made.smaller ? `${made.smaller}; ${comment}` : comment);
  for (const f of made.fitting) {
    const searched = maxRate !== undefined && f === made.fitting.at(-1) && (f.profile.slo?.ttftMs !== undefined || f.profile.slo?.tpotMs !== undefined);
    const run = searched ? await maxRate(f) : await simulate(f);
    if (run === null) return null;
    if (searched) lastSearch = run;
    // A search that did not run the asked rate first (it always does: startScale 1): simulate it.
    const pool: AskedRateRun | string | null = searched && typeof run !== 'string' ? (askedRateRun(run) ?? (await simulate(f))) : run;
    if (pool === null) return null;
    if (typeof pool === 'string') {
      const failed = tries.map((x) => `${x.tensorParallelSize}: ${said(x)}`).join('; ');
      const comment = `the check that the workload below is served stopped at ${f.tensorParallelSize}: ${pool}${failed === '' ? '' : `; at ${failed}`}`;
      return { text: commentTensorParallel(made.fitting[0]!.text, comment), tensorParallelSize: made.tensorParallelSize, note: `${made.note} The check that its workload is served stopped at tensor_parallel_size ${f.tensorParallelSize}: ${pool}.`, tries };
    }
    const target = f.profile.slo?.attainment ?? SLO_ATTAINMENT_DEFAULT;
    const overloaded = pool.load?.overloaded ?? false;
    const attainment = pool.latency?.sloAttainment ?? null;
    const t: ServingTry = {
      tensorParallelSize: f.tensorParallelSize,
      overloaded,
      attainment,
      target,
      p99TtftS: pool.latency?.ttft?.p99 ?? null,
      serves: !overloaded && (attainment === null ? f.profile.slo === undefined : attainment >= target),
    };
    tries.push(t);
    if (!t.serves) continue;
    const tp = t.tensorParallelSize;
    const failed = tries.slice(0, -1);
    // How far the written size goes: its capacity search's highest rate within the SLO (the one already run, on the largest size).
    const cap = lastSearch ?? (maxRate ? await maxRate(f) : null);
    if (maxRate && cap === null) return null;
    // Each figure names its size: "it serves up to 16.2" after TP 1's verdict read as TP 1's (s50 newcomer-ed 2, gemma-2-9b).
    const served = cap && typeof cap !== 'string' ? askedMaxRate(cap.capacity) : null;
    const upTo = served ? `; at ${tp} it serves up to ${requestRateDown(served)} requests/s within the SLO (capacity search)` : '';
    if (failed.length === 0) return { text: commentTensorParallel(f.text, `its simulation of the workload below keeps up: ${said(t)} (modelled)${upTo}`), tensorParallelSize: tp, note: `${made.note} Its simulation of the workload keeps up: ${said(t)} (modelled)${upTo}.`, tries };
    const smaller = failed.map((x) => x.tensorParallelSize).join(' and ');
    const each = [...failed, t].map((x) => `at ${x.tensorParallelSize}, ${said(x)}`).join('; ');
    const comment = `${smaller} ${failed.length > 1 ? 'hold' : 'holds'} the weights but ${failed.length > 1 ? 'do' : 'does'} not serve the workload below (modelled: ${each})${upTo}`;
    return {
      text: commentTensorParallel(f.text, comment),
      tensorParallelSize: tp,
      note: `tensor_parallel_size ${tp}: the smallest at which the workload below is served within its SLO (modelled: ${each})${upTo}.`,
      tries,
    };
  }
  const last = made.fitting.at(-1);
  if (!last) return { ...made, tries };
  const t = tries.at(-1)!;
  const tp = last.tensorParallelSize;
  // The capacity search (runner/simulate/capacity.ts, `simulate --max-rate`) on the largest size,
  // run in the loop above: the highest arrival_rate it serves within the SLO is written in place
  // of the one it does not.
  const cap = lastSearch ?? (maxRate ? await maxRate(last) : 'no capacity search');
  if (cap === null) return null;
  const found = typeof cap === 'string' ? null : askedMaxRate(cap.capacity);
  const asked = last.profile.workload?.arrivalRate;
  if (found !== null && found > 0 && asked !== undefined && found < asked) {
    const rate = requestRateDown(found);
    const limit = typeof cap !== 'string' && cap.capacity?.limit === 'capacity' ? 'the saturated throughput' : 'the SLO';
    // An answer at near idle is no capacity: data_parallel_size engines would not serve more within the SLO either.
    const idle = typeof cap !== 'string' && cap.capacity ? sloNearIdleNote(cap.capacity) : null;
    const withRate = last.text.replace(/^( {2}arrival_rate: )\S+( +# .*)?$/m, (_l, head: string) => `${head}${rate}`.padEnd(34) + (idle ? `# the capacity search's answer at tensor_parallel_size ${tp}, near idle (see its comment); ${asked} was not served` : `# the highest rate tensor_parallel_size ${tp} serves (${limit} bounds it; modelled capacity search, simulate --max-rate); ${asked} was not`));
    return {
      text: commentTensorParallel(withRate, idle ? `no tensor_parallel_size up to ${tp} serves ${asked} requests/s within the SLO (at ${tp}: ${said(t)}); ${idle}` : `no tensor_parallel_size up to ${tp} serves ${asked} requests/s within the SLO (at ${tp}: ${said(t)}); data_parallel_size engines serve more`),
      tensorParallelSize: tp,
      note: idle
        ? `no tensor_parallel_size up to ${tp} serves ${asked} requests/s within its SLO on these GPUs (modelled, at ${tp}: ${said(t)}), and ${idle}; the file's arrival_rate is ${rate}, the capacity search's answer.`
        : `no tensor_parallel_size up to ${tp} serves ${asked} requests/s within its SLO on these GPUs (modelled, at ${tp}: ${said(t)}); the file's arrival_rate is ${rate}, the highest that tensor_parallel_size ${tp} serves (capacity search).`,
      tries,
    };
  }
  const what = 'lower workload.arrival_rate, or add engines with data_parallel_size';
  return {
    text: commentTensorParallel(last.text, `no tensor_parallel_size up to ${last.tensorParallelSize} serves the workload below within the SLO (at ${tp}: ${said(t)}): ${what}`),
    tensorParallelSize: last.tensorParallelSize,
    note: `no tensor_parallel_size up to ${last.tensorParallelSize} serves the workload within its SLO on these GPUs (modelled, at ${last.tensorParallelSize}: ${said(t)}); ${what}.`,
    tries,
  };
}

/**
 * A capacity search's answer as an arrival_rate to write (requests/s): the rate asked of the drawn
 * workload at the answer (CapacityPoint.askedRate, arrival_rate × time scale), where its draws
 * offered another (CapacityCurve.maxRate, the offered rate since s51); else maxRate. Null without one.
 */
function askedMaxRate(c: CapacityCurve | undefined): number | null {
  if (!c?.maxRate) return null;
  return c.points.find((p) => p.meets && p.rate === c.maxRate)?.askedRate ?? c.maxRate;
}

/** What the serving check reads of a run at the asked rate: the queue's verdict and the latency's share and p99 TTFT. */
type AskedRateRun = { load?: { overloaded: boolean }; latency?: { sloAttainment?: number; ttft?: { p99: number } | null } };

/**
 * The run at the profile's own arrival_rate inside a capacity search's result (`simulate
 * --max-rate`: the curve's point at scale 1, which the search simulates first, CapacityPoint),
 * as the serving check reads a plain simulation of it: overloaded (its PoolLoad.overloaded), the
 * share meeting the SLO and the p99 TTFT. Null when the curve has no such point, or one from a
 * run before s43 that did not record `overloaded`.
 */
function askedRateRun(search: PoolResult): AskedRateRun | null {
  const p = search.capacity?.points.find((x) => x.scale === 1);
  if (!p || p.overloaded === undefined) return null;
  return { load: { overloaded: p.overloaded }, latency: { sloAttainment: p.sloAttainment, ttft: p.p99TtftS === null ? null : { p99: p.p99TtftS } } };
}


/**
 * Why the tensor_parallel_sizes in `sizes` do not fit, from the problem that blocked each
 * (newProfile's `serves`): the sizes whose weights a GPU exceed the usable memory in one clause
 * (weights-exceed-device's data: bytes a GPU, usable bytes), then one clause a size for no room
 * for a KV page, a pool below one `maxModelLen` sequence, or another problem's message. Each
 * weights figure reads above the usable one as printed (more digits where three print them equal).
 */
export function whyNot(sizes: Array<{ tp: number; blocked: Problem | undefined }>, maxModelLen: number): string {
  const and = (xs: string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}` : xs[0] ?? '');
  const over = sizes.filter((x) => x.blocked?.code === 'weights-exceed-device' && Number(x.blocked.data?.['weightsBytes']) > 0 && Number(x.blocked.data?.['usableBytes']) > 0);
  const clauses: string[] = [];
  if (over.length > 0) {
    // Each size's weights and the usable memory printed so that "exceed" reads true (core/format formatBytesApart: "36 GiB a GPU,
    // exceed 35.99 GiB usable", not "36 ... 36", s51); the usable memory, printed once, with the most digits any size needed.
    const usableBytes = Number(over[0]!.blocked!.data!['usableBytes']);
    const pairs = over.map((x) => formatBytesApart(Number(x.blocked!.data!['weightsBytes']), usableBytes));
    const gib = pairs.map(([w]) => w);
    const usable = pairs.map(([, u]) => u).reduce((a, b) => (b.length > a.length ? b : a));
    clauses.push(over.length === 1
      ? `at ${over[0]!.tp} the weights, ${gib[0]} a GPU, exceed ${usable} usable`
      : `at ${and(over.map((x) => String(x.tp)))} the weights (${gib.join(', ')} a GPU) exceed ${usable} usable`);
  }
  for (const { tp, blocked } of sizes) {
    if (over.some((x) => x.tp === tp)) continue;
    clauses.push(blocked?.code === 'kv-pool-empty'
      ? `at ${tp} the weights and activations leave no room for a KV page`
      : blocked?.code === 'pool-below-max-model-len'
        ? `at ${tp} the KV pool holds no ${formatCount(maxModelLen)}-token sequence`
        : `at ${tp}: ${blocked?.message ?? 'the profile does not read'}`);
  }
  return clauses.join('; ');
}

/** `text` with `# comment` after its `tensor_parallel_size:` line, wrapped ({@link wrapComments}). */
function commentTpLine(text: string, comment: string): string {
  return wrapComments(text.replace(/^( {2}tensor_parallel_size: \d+)$/m, (line) => `${line.padEnd(34)}# ${comment}`));
}

/** The longest line written: VS Code's usual ruler (`editor.rulers` set to 100 by many style guides) and what a diff or a terminal shows unwrapped. */
export const PROFILE_LINE_WIDTH = 100;

/**
 * `text` with each comment that runs past {@link PROFILE_LINE_WIDTH} characters broken between
 * words onto `#` lines below it, at the comment's column (s45 newcomer-ed: "New profile" wrote
 * comments of 160-194 characters, read in the editor only by scrolling). A comment line in YAML
 * says nothing to the loader, so the profile reads back the same; a word longer than a line (a
 * path) is kept whole. Lines with no comment, or short enough, are left as they are.
 */
export function wrapComments(text: string, width = PROFILE_LINE_WIDTH): string {
  return text.split('\n').map((line) => {
    // A comment starts at a `#` after a space, or at the line's first non-blank (never inside a quoted scalar: none here has ` #`).
    const m = /^(.*?\S)?( +)# (.*)$/.exec(line) ?? /^( *)()# (.*)$/.exec(line);
    if (line.length <= width || !m) return line;
    const column = line.length - m[3].length - 2;
    // A key so long that little room is left: the continuation lines start at the key's indent.
    const at = width - column - 2 >= 40 ? column : line.length - line.trimStart().length;
    const out: string[] = [];
    let head = line.slice(0, column + 2);
    let room = width - head.length;
    let current = '';
    for (const word of m[3].split(' ')) {
      if (current !== '' && current.length + 1 + word.length > room) {
        out.push(head + current);
        head = `${' '.repeat(at)}# `;
        room = width - head.length;
        current = word;
      } else current = current === '' ? word : `${current} ${word}`;
    }
    out.push(head + current);
    return out.join('\n');
  }).join('\n');
}

/**
 * The profile's text: the shipped example's blocks (examples/llama-3.1-8b.attn.yaml) with each
 * key's meaning in a comment; `len` null writes no workload.max_model_len (the first reading,
 * which learns the model's own); `pageSize` vLLM's default for the model on the GPU (core/estimate
 * vllmDefaultPageSize).
 */
function profileText(choice: NewProfileChoice, tp: number, len: { maxModelLen: number; derived: number } | null, pageSize = 16, pp = 1, dtype: string[] = []): string {
  let model = relative(dirname(choice.profilePath), choice.configPath).split(sep).join('/');
  if (!model.startsWith('.') && !model.startsWith('/')) model = `./${model}`;
  const scalar = (s: string) => stringify(s, { lineWidth: 0 }).trimEnd();
  const lenLine = len === null
    ? ''
    : `  max_model_len: ${len.maxModelLen}${len.derived > len.maxModelLen ? `             # vLLM's default for this model: ${formatCount(len.derived)} (raise it for longer requests)` : ''}\n`;
  return wrapComments([
    '# An AttnScope profile: a model served by vLLM on a GPU. Hover a key for what it means and which',
    '# vLLM flag it is; the hints at the end of lines show memory per GPU, the KV pool and its pages.',
    '# Code lenses above run a benchmark of the attention kernels on this machine, a simulation of',
    '# serving the workload below, and the dashboard shows the results.',
    `model: ${scalar(model)}`,
    ...dtype,
    'device:',
    `  gpu: ${scalar(choice.gpu)}`,
    '  gpu_memory_utilization: 0.9     # vLLM --gpu-memory-utilization',
    `  tensor_parallel_size: ${tp}`,
    ...(pp > 1 ? [`  pipeline_parallel_size: ${pp}`.padEnd(34) + `# ${tp * pp} GPUs: no tensor_parallel_size up to ${MAX_TP} holds the weights alone`] : []),
    'kv_cache:',
    `  page_size: ${pageSize}                   # vLLM --block-size${pageSize === 64 ? ' (FlashMLA on this GPU: vLLM raises it to 64)' : pageSize === 128 ? ' (CUTLASS MLA on this GPU: vLLM raises it to 128)' : ''}`,
    '  dtype: auto                     # vLLM --kv-cache-dtype: auto, fp8_e4m3, fp8_e5m2',
    'prefill:                          # the FlashAttention forward the benchmark times',
    '  batch_size: 1',
    `  seq_lens: [${capped([512, 2048], len?.maxModelLen).join(', ')}]`,
    '  causal: true',
    'decode:                           # the PagedAttention decode the benchmark times',
    '  batch_sizes: [1, 8]',
    `  context_lens: [${capped([1024, 4096], len?.maxModelLen).join(', ')}]`,
    'workload:                         # what `Run serving simulation` serves: a chat-like load',
    '  requests: 1000',
    '  arrival_rate: 8                 # requests per second, Poisson',
    ...lengthLines(len?.maxModelLen ?? null),
    lenLine.trimEnd(),
    '  seed: 1',
    'slo:                              # goodput counts the requests that meet both',
    '  ttft_ms: 1000',
    '  tpot_ms: 100',
    '',
  ].filter((l, i, all) => l !== '' || i === all.length - 1).join('\n'));
}

/**
 * The top-level `dtype:` line when the loader would otherwise assume one and say so (core/config
 * defaultDtype: a config with no torch_dtype, gpt-oss-20b, GPT-2, or a float32 one): the file
 * writes the dtype it is sized in, with why, so that a new profile opens with no dtype-assumed
 * note (s48 newcomer-ed 10). None when the config's own torch_dtype is used.
 */
function dtypeLines(model: ModelSpec): string[] {
  const d = defaultDtype(model);
  if (d.note === undefined) return [];
  const why = model.torchDtype === null ? 'the config names no torch_dtype (float32 to vLLM)' : 'the config says float32';
  return [`dtype: ${d.dtype}`.padEnd(34) + `# ${why}; served in half precision, as vLLM's --dtype auto does`];
}

/** Benchmark lengths no longer than the model's max_model_len (GPT-2: 1,024), without repeats. */
function capped(lens: number[], maxModelLen: number | undefined): number[] {
  return [...new Set(lens.map((n) => Math.min(n, maxModelLen ?? n)))];
}

/**
 * workload.prompt_len / output_len: the shipped example's chat lengths (lognormal prompts of median
 * 512 up to 4,096 tokens, outputs 32-512), shrunk to fit a shorter max_model_len (a prompt at most
 * three quarters of it, an output the rest) so that no request is refused as too long.
 */
function lengthLines(maxModelLen: number | null): string[] {
  const promptMax = Math.max(2, Math.min(4096, Math.floor((maxModelLen ?? Infinity) * 0.75)));
  const outputMax = Math.max(1, Math.min(512, (maxModelLen ?? Infinity) - promptMax));
  const median = Math.max(1, Math.min(512, Math.floor(promptMax / 4)));
  return [
    `  prompt_len: { dist: lognormal, median: ${median}, sigma: 1, max: ${promptMax} }`,
    `  output_len: { dist: uniform, min: ${Math.min(32, outputMax)}, max: ${outputMax} }`,
  ];
}

/** The profile file's name for a config: `<model label>.attn.yaml`, made unique with `-2`, `-3`, … among `taken`. */
export function newProfileName(label: string, taken: (name: string) => boolean): string {
  const stem = label.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'model';
  for (let i = 1; ; i++) {
    const name = `${stem}${i === 1 ? '' : `-${i}`}.attn.yaml`;
    if (!taken(name)) return name;
  }
}
