/**
 * A sweep (issue 13): a profile's `sweep:` block and the command line's `--set key=v1,v2`,
 * expanded into points, each a full resolved Profile read exactly as if the user had written
 * that value into the file.
 *
 *   sweep:
 *     job: simulate                    # simulate | bench | both (default simulate)
 *     axes:
 *       kv_cache.page_size: [8, 16, 32]
 *       workload.max_num_seqs: [64, 256]
 *     slurm: { partition: gpu, gpus_per_task: 1, time: "00:30:00", tasks: 3 }
 *
 * Points are the Cartesian product of the axes, first axis slowest, last fastest (the order
 * written, `--set` axes after the file's; a `--set` of an axis the file has replaces its
 * values in place). A point's profile is the file's value tree without `sweep`, with each axis
 * value put at its dotted path; it goes through the same reader as any profile, so a bad
 * value is reported at the value in the sweep block (or as the `--set` argument).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import * as YAML from 'yaml';
import { closestMatch, getProperty, isProfilePath, offsetToLineColumn, parseProfileText, readProfileTree, toPlain, type ParsedTree, type Problem, type Profile, type SourceRange, type ValueNode } from '../../core/config';
import type { SweepJob, SweepPointRef } from '../../core/protocol/sweep';
import profileSchema from '../../schemas/attn-profile.schema.json';
import { InputError, UsageError } from '../errors';
import { deploymentNotes } from '../preflight';

export const SWEEP_JOBS: readonly SweepJob[] = ['simulate', 'bench', 'both'];

/** Most points one sweep may expand to: beyond it a typo (an axis of 10,000 values) would start a day of work. */
export const MAX_SWEEP_POINTS = 100_000;

/** One axis: a dotted profile path and the values it takes, as value nodes (positions in the profile, or virtual for `--set`). */
export interface SweepAxis {
  key: string;
  values: ValueNode[];
  /** The key in the sweep block; null for a `--set` axis. */
  keyRange: SourceRange | null;
}

/** Scheduler settings from `sweep.slurm` (flags of `attnscope submit` override them). */
export interface SlurmSettings {
  partition?: string;
  gpusPerTask?: number;
  cpusPerTask?: number;
  /** Slurm time limit as sbatch takes it ("30", "00:30:00", "1-00:00:00"). */
  time?: string;
  /** Array tasks (shards). */
  tasks?: number;
}

/** A point: its place in the sweep and the profile it runs. */
export interface SweepPoint extends SweepPointRef {
  profile: Profile;
}

/** An expanded sweep, ready to run or to submit. */
export interface SweepPlan {
  /** The profile as the user typed it, and its absolute path. */
  file: string;
  absFile: string;
  /** Display name: the profile's file name. */
  name: string;
  sweepId: string;
  job: SweepJob;
  axes: Array<{ key: string; values: unknown[] }>;
  points: SweepPoint[];
  /** The `--set` arguments as given (the scheduler scripts pass them on unchanged). */
  set: string[];
  slurm: SlurmSettings;
  /** Warnings of the base profile and the points, deduplicated, as `file:line:col: warning: message`. */
  notes: string[];
  /**
   * The error for a problem of `point` at a profile key (e.g. "decode.context_lens"): at the
   * key's nearest written parent in the file or the sweep block, or naming the `--set` argument.
   */
  errorAt(point: SweepPoint, key: string, message: string): Error;
}

export interface SweepOptions {
  /** `--set key=v1,v2` arguments, in order. */
  set?: string[];
  /** Benchmark options (--quick, --backend): part of the sweep's identity when its job benchmarks, since they change the figures. */
  benchOptions?: Record<string, unknown>;
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The stable id of a point: 12 hex digits of SHA-256 over its canonical `{key: value}`. */
export function pointId(values: Record<string, unknown>): string {
  return sha256(canonicalJson(values)).slice(0, 12);
}

/**
 * Which value of each axis point `index` takes: the mixed-radix digits of `index` over the axis
 * lengths `sizes`, first axis slowest, last fastest. The one expansion order of every sweep.
 */
export function axisIndices(index: number, sizes: readonly number[]): number[] {
  const out = new Array<number>(sizes.length);
  let rest = index;
  for (let k = sizes.length - 1; k >= 0; k--) {
    out[k] = rest % sizes[k]!;
    rest = Math.floor(rest / sizes[k]!);
  }
  return out;
}

/** "page_size=16 max_num_seqs=64": each key's last part, unless two axes share it. */
export function pointLabel(values: Record<string, unknown>): string {
  const keys = Object.keys(values);
  const last = (k: string) => k.slice(k.lastIndexOf('.') + 1);
  return keys
    .map((k) => {
      const short = keys.filter((o) => last(o) === last(k)).length > 1 ? k : last(k);
      const v = values[k];
      return `${short}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
    })
    .join(' ');
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  $ref?: string;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
}

/** The schema's branches for a dotted path, resolving $ref and anyOf/oneOf; empty when no branch has it. */
function schemaAt(path: readonly string[]): SchemaNode[] {
  const root = profileSchema as unknown as SchemaNode & { definitions?: Record<string, SchemaNode> };
  const expand = (n: SchemaNode): SchemaNode[] => {
    if (n.$ref) {
      const def = root.definitions?.[n.$ref.replace('#/definitions/', '')];
      return def ? expand(def) : [];
    }
    const branches = [...(n.anyOf ?? []), ...(n.oneOf ?? [])];
    return [n, ...branches.flatMap(expand)];
  };
  let nodes = expand(root);
  for (const seg of path) nodes = nodes.flatMap((n) => (n.properties?.[seg] ? expand(n.properties[seg]) : []));
  return nodes;
}

/** Keys the schema knows under `path` (for "did you mean"). */
function knownKeys(path: readonly string[]): string[] {
  return [...new Set(schemaAt(path).flatMap((n) => Object.keys(n.properties ?? {})))].filter((k) => k !== '$schema');
}

/** Where a problem of the sweep is: a range in the profile, or a `--set` argument. */
type Where = { range: SourceRange } | { setArg: string };

/** The positioned error the CLI prints: file:line:col in the profile, or a usage error naming the --set argument. */
function sweepError(file: string, text: string, where: Where, message: string): Error {
  if ('setArg' in where) return new UsageError(`--set ${where.setArg}: ${message}`, false);
  const { line, column } = offsetToLineColumn(text, where.range.offset);
  return new InputError(message, file, line, column);
}

/** A YAML scalar's value node: `16` a number, `fp8_e4m3` a string, `true` a boolean. */
function nodeOf(value: unknown, range: SourceRange): ValueNode {
  if (Array.isArray(value)) return { type: 'array', range, items: value.map((v) => nodeOf(v, range)) };
  if (value !== null && typeof value === 'object') {
    return { type: 'object', range, properties: Object.entries(value).map(([key, v]) => ({ key, keyRange: range, value: nodeOf(v, range) })) };
  }
  if (value === null || value === undefined) return { type: 'null', range, value: null };
  const t = typeof value;
  return { type: t === 'number' || t === 'boolean' ? t : 'string', range, value: t === 'number' || t === 'boolean' ? (value as number | boolean) : String(value) } as ValueNode;
}

/**
 * Parses `key=v1,v2` (or `key=[...]`, a YAML flow sequence, for values holding commas) into an
 * axis whose value nodes sit at `virtualOffset` (past the end of the profile's text, so that a
 * problem found in them is told apart from the file's own).
 * @throws UsageError naming the argument.
 */
export function parseSetArg(arg: string, virtualOffset: number): SweepAxis {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new UsageError(`--set ${arg}: expected key=value[,value...], e.g. --set kv_cache.page_size=8,16,32`, false);
  const key = arg.slice(0, eq).trim();
  const text = arg.slice(eq + 1).trim();
  if (text === '') throw new UsageError(`--set ${arg}: no values after '='`, false);
  const range = { offset: virtualOffset, length: 0 };
  let values: unknown[];
  try {
    if (text.startsWith('[')) {
      const parsed: unknown = YAML.parse(text);
      if (!Array.isArray(parsed) || parsed.length === 0) throw new Error('a [..] list needs at least one value');
      values = parsed;
    } else {
      values = text.split(',').map((v) => (v.trim() === '' ? (() => { throw new Error('an empty value between commas'); })() : YAML.parse(v.trim()) as unknown));
    }
  } catch (e) {
    throw new UsageError(`--set ${arg}: ${(e as Error).message.split('\n')[0]}`, false);
  }
  return { key, values: values.map((v) => nodeOf(v, range)), keyRange: null };
}

/** The `sweep:` block of a profile's tree. @throws InputError at the offending key or value. */
function readSweepBlock(node: ValueNode, fail: (range: SourceRange, message: string) => Error): { axes: SweepAxis[]; job: SweepJob; slurm: SlurmSettings } {
  if (node.type !== 'object') throw fail(node.range, 'sweep must be a mapping with `axes:` (and optionally `job:`, `slurm:`)');
  let axes: SweepAxis[] = [];
  let job: SweepJob = 'simulate';
  const slurm: SlurmSettings = {};
  for (const p of node.properties ?? []) {
    if (p.key === 'axes') {
      if (p.value.type !== 'object') throw fail(p.value.range, 'sweep.axes must map profile keys to lists of values, e.g. `kv_cache.page_size: [8, 16, 32]`');
      axes = (p.value.properties ?? []).map((a) => {
        if (a.value.type !== 'array') throw fail(a.value.range, `sweep axis ${a.key} must be a list of values, e.g. [8, 16, 32]`);
        if ((a.value.items ?? []).length === 0) throw fail(a.value.range, `sweep axis ${a.key} needs at least one value`);
        return { key: a.key, values: a.value.items ?? [], keyRange: a.keyRange };
      });
    } else if (p.key === 'job') {
      if (p.value.type !== 'string' || !SWEEP_JOBS.includes(p.value.value as SweepJob)) throw fail(p.value.range, `sweep.job must be one of ${SWEEP_JOBS.join(', ')}`);
      job = p.value.value as SweepJob;
    } else if (p.key === 'slurm') {
      Object.assign(slurm, readSlurmBlock(p.value, fail));
    } else {
      const hint = closestMatch(p.key, ['axes', 'job', 'slurm']);
      throw fail(p.keyRange, `unknown key "${p.key}" in sweep${hint ? `: did you mean "${hint}"?` : ': known keys are axes, job, slurm'}`);
    }
  }
  return { axes, job, slurm };
}

function readSlurmBlock(node: ValueNode, fail: (range: SourceRange, message: string) => Error): SlurmSettings {
  if (node.type !== 'object') throw fail(node.range, 'sweep.slurm must be a mapping (partition, gpus_per_task, cpus_per_task, time, tasks)');
  const out: SlurmSettings = {};
  const count = (v: ValueNode, key: string, min: number): number => {
    if (v.type !== 'number' || !Number.isInteger(v.value) || (v.value as number) < min) throw fail(v.range, `sweep.slurm.${key} must be a whole number >= ${min}`);
    return v.value as number;
  };
  for (const p of node.properties ?? []) {
    switch (p.key) {
      case 'partition':
        if (p.value.type !== 'string' || p.value.value === '') throw fail(p.value.range, 'sweep.slurm.partition must be a partition name');
        out.partition = String(p.value.value);
        break;
      case 'time':
        if (p.value.type !== 'string' && p.value.type !== 'number') throw fail(p.value.range, 'sweep.slurm.time must be a Slurm time limit, e.g. "00:30:00"');
        out.time = String(p.value.value);
        break;
      case 'gpus_per_task':
        out.gpusPerTask = count(p.value, p.key, 0);
        break;
      case 'cpus_per_task':
        out.cpusPerTask = count(p.value, p.key, 1);
        break;
      case 'tasks':
        out.tasks = count(p.value, p.key, 1);
        break;
      default: {
        const known = ['partition', 'gpus_per_task', 'cpus_per_task', 'time', 'tasks'];
        const hint = closestMatch(p.key, known);
        throw fail(p.keyRange, `unknown key "${p.key}" in sweep.slurm${hint ? `: did you mean "${hint}"?` : `: known keys are ${known.join(', ')}`}`);
      }
    }
  }
  return out;
}

/** The tree without `sweep`, with each (path, value node) put in place; missing mappings are created at `anchor`. */
function applyValues(root: ValueNode, assignments: Array<{ key: string; value: ValueNode; anchor: SourceRange }>): ValueNode {
  const out: ValueNode = { ...root, properties: (root.properties ?? []).filter((p) => p.key !== 'sweep') };
  for (const { key, value, anchor } of assignments) {
    const segs = key.split('.');
    let node = out;
    segs.forEach((seg, i) => {
      const props = (node.properties ??= []);
      const at = props.map((p) => p.key).lastIndexOf(seg);
      if (i === segs.length - 1) {
        if (at >= 0) props[at] = { ...props[at]!, value };
        else props.push({ key: seg, keyRange: anchor, value });
        return;
      }
      let child = at >= 0 ? props[at]!.value : undefined;
      // Copy each mapping on the way down: the base tree is shared by every point.
      child = child?.type === 'object' ? { ...child, properties: [...(child.properties ?? [])] } : { type: 'object', range: anchor, properties: [] };
      if (at >= 0) props[at] = { ...props[at]!, value: child };
      else props.push({ key: seg, keyRange: anchor, value: child });
      node = child;
    });
  }
  return out;
}

/**
 * Reads a profile with a sweep (`sweep:` block and/or `--set`) into its points.
 * @param file the profile as the user typed it (messages repeat it).
 * @throws InputError (file:line:col) for a bad profile, sweep block or point value; UsageError
 *   for a bad `--set` or a sweep with no axes; each before any work is done.
 */
export function loadSweep(file: string, opts: SweepOptions = {}): SweepPlan {
  const abs = resolve(file);
  if (!isProfilePath(abs)) throw new InputError('a sweep needs a profile (*.attn.yaml, *.attn.yml or *.attn.json): its `sweep:` block or --set values apply to it', file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a file' : (e as Error).message, file);
  }
  const fail = (range: SourceRange, message: string) => sweepError(file, text, { range }, message);
  const parsed = parseProfileText(text, abs);
  const syntax = parsed.problems.find((p) => p.severity === 'error');
  if (syntax) throw fail(syntax.range, syntax.message);
  const root = parsed.root;
  if (!root || root.type !== 'object') throw fail({ offset: 0, length: 0 }, 'a profile is a mapping of keys (model, dtype, device, kv_cache, ...)');

  const sweepNode = getProperty(root, 'sweep')?.value;
  const block = sweepNode ? readSweepBlock(sweepNode, fail) : { axes: [], job: 'simulate' as SweepJob, slurm: {} };
  const setArgs = opts.set ?? [];
  // Virtual offsets past the text: set argument i's values sit at text.length + 1 + i.
  const setAxes = setArgs.map((arg, i) => parseSetArg(arg, text.length + 1 + i));
  const axes = [...block.axes];
  for (const s of setAxes) {
    const at = axes.findIndex((a) => a.key === s.key);
    if (at >= 0) axes[at] = s;
    else axes.push(s);
  }
  if (axes.length === 0) throw new UsageError(`${file} has no sweep: add a \`sweep:\` block with axes, or give --set key=v1,v2`, false);
  const whereOfAxis = (a: SweepAxis): Where => (a.keyRange ? { range: a.keyRange } : { setArg: setArgs[setAxes.findIndex((s) => s.key === a.key)]! });

  for (const a of axes) {
    const segs = a.key.split('.');
    const bad = segs.findIndex((_, i) => schemaAt(segs.slice(0, i + 1)).length === 0);
    if (a.key === 'sweep' || segs[0] === 'sweep' || segs.includes('') || bad >= 0) {
      const parent = bad > 0 ? segs.slice(0, bad) : [];
      const hint = bad >= 0 ? closestMatch(segs[bad]!, knownKeys(parent)) : undefined;
      const where = bad > 0 ? ` in ${parent.join('.')}` : '';
      throw sweepError(file, text, whereOfAxis(a), `"${a.key}" is not a profile key to sweep${bad >= 0 ? `: unknown key "${segs[bad]}"${where}${hint ? `, did you mean "${hint}"?` : ''}` : ''}`);
    }
    const overlap = axes.find((o) => o !== a && o.key.startsWith(`${a.key}.`));
    if (overlap) throw sweepError(file, text, whereOfAxis(overlap), `sweep axes ${a.key} and ${overlap.key} overlap: sweep one of them`);
  }

  const total = axes.reduce((n, a) => n * a.values.length, 1);
  if (total > MAX_SWEEP_POINTS) throw sweepError(file, text, whereOfAxis(axes[0]!), `the sweep has ${total} points, more than ${MAX_SWEEP_POINTS}: split it`);

  const texts = new Map<string, string | null>();
  const host = {
    readFile(p: string): string | null {
      if (!texts.has(p)) {
        try {
          texts.set(p, readFileSync(p, 'utf8'));
        } catch {
          texts.set(p, null);
        }
      }
      return texts.get(p)!;
    },
  };
  const notes = new Set<string>();
  /** Where a range of a point's profile is: in another file (a model config), past the text (a --set argument), or in the profile. */
  const whereOf = (range: SourceRange, inFile?: string): { file: string; line: number; column: number } | { setArg: string } => {
    if (inFile && inFile !== abs) return { file: inFile, ...offsetToLineColumn(host.readFile(inFile) ?? '', range.offset) };
    if (range.offset > text.length) return { setArg: setArgs[range.offset - text.length - 1]! };
    return { file, ...offsetToLineColumn(text, range.offset) };
  };
  const errorAtRange = (range: SourceRange, message: string, inFile?: string): Error => {
    const w = whereOf(range, inFile);
    return 'setArg' in w ? new UsageError(`--set ${w.setArg}: ${message}`, false) : new InputError(message, w.file, w.line, w.column);
  };
  const noteOf = (p: Problem): string => {
    const w = whereOf(p.range, p.file);
    return `${'setArg' in w ? `--set ${w.setArg}` : `${w.file}:${w.line}:${w.column}`}: ${p.severity}: ${p.message}`;
  };

  const points: SweepPoint[] = [];
  for (let index = 0; index < total; index++) {
    const digits = axisIndices(index, axes.map((a) => a.values.length));
    const assignments = axes.map((a, k) => {
      const value = a.values[digits[k]!]!;
      return { key: a.key, value, anchor: a.keyRange ?? value.range };
    });
    const values: Record<string, unknown> = {};
    for (const { key, value } of assignments) values[key] = toPlain(value);
    const label = pointLabel(values);
    const tree: ParsedTree = { root: applyValues(root, assignments), problems: [] };
    const read = readProfileTree(tree, abs, host);
    const error = read.problems.find((p) => p.severity === 'error');
    if (error || !read.value) {
      const p = error ?? read.problems[0];
      const message = `sweep point ${label}: ${p?.message ?? 'not a valid profile'}`;
      throw p ? errorAtRange(p.range, message, p.file) : new InputError(message, file);
    }
    const profile = read.value;
    const checks = deploymentNotes(profile);
    for (const p of [...read.problems, ...checks]) notes.add(noteOf(p));
    points.push({ id: pointId(values), index, values, label, profile });
  }

  const plainAxes = axes.map((a) => ({ key: a.key, values: a.values.map(toPlain) }));
  const modelTexts = [...new Set(points.map((p) => p.profile.modelPath).filter((m): m is string => m !== null))]
    .sort()
    .map((m) => sha256(host.readFile(m) ?? ''));
  const base = toPlain({ ...root, properties: (root.properties ?? []).filter((p) => p.key !== 'sweep') });
  const sweepId = sha256(canonicalJson({ base, models: modelTexts, axes: plainAxes, job: block.job, options: block.job === 'simulate' ? {} : (opts.benchOptions ?? {}) })).slice(0, 16);
  const errorAt = (point: SweepPoint, key: string, message: string): Error => {
    const msg = `sweep point ${point.label}: ${message}`;
    for (const parts = key.split('.'); parts.length > 0; parts.pop()) {
      const range = point.profile.ranges[parts.join('.')];
      if (range) return errorAtRange(range, msg);
    }
    return new InputError(msg, file);
  };
  return { file, absFile: abs, name: basename(file), sweepId, job: block.job, axes: plainAxes, points, set: setArgs, slurm: block.slurm, notes: [...notes], errorAt };
}
