/**
 * The one validation of a profile (*.attn.yaml / *.attn.json) or a HuggingFace config.json, for
 * the language server and the CLI alike: every problem at once, each with its range (and `file`
 * when it lies in the config.json a profile names) and severity. The server shows them as
 * diagnostics (server/diagnostics.ts); the CLI prints every error of a run and exits 2 before any
 * work (runner/load.ts), printing the rest as warnings and infos.
 *
 * What it runs, in order: the read (syntax, schema, the model's config, the checks that compare
 * two keys or a key with the model: core/config/profileChecks.ts), the deployment checks of the
 * profile that read (core/estimate/checks.ts checkProfile, and the pool a workload simulation
 * cannot size: poolSizeProblem), or, when some keys have errors, the cross-key checks (where
 * schema errors stopped the read before them) and deployment checks that read none of those keys,
 * on the profile of the other keys. Not a profile's sweep block: the language server checks it
 * when it publishes diagnostics (core/config/sweep.ts sweepProblems), `attnscope sweep` reads
 * every point before it runs.
 *
 * Severity is the editor's. A run gives it {@link runSeverity}: a deployment check compares the
 * profile with a device or the kernels, and its figures are the answer to "does it fit", so it
 * never stops a run (DESIGN.md "Errors and warnings").
 */
import {
  isProfilePath,
  propertyAt,
  readProfileOrConfigTree,
  readProfileValues,
  readsAsProfile,
  getProperty,
  nodeAtPath,
  parseProfileOrConfig,
  parseProfileText,
  type ParsedTree,
  type Problem,
  type Profile,
  type ProfileHost,
  type PropertyNode,
  type Severity,
  type SourceRange,
  type ValueNode,
  withCrossKeyChecks,
} from './config/index';
import { CHECK_KEYS, checkProfile, checksIndependentOf, estimate, poolSizeProblem, type Estimate } from './estimate/index';
import { modelledJob } from './protocol/sweep';
import { TRACE_REPLACES } from './config/profileChecks';
import type { SweepJob } from './config/sweep';

/**
 * Code of the warning that a workload's pool cannot be simulated (core/estimate poolSizeProblem:
 * no pages, too many, an encoder). `simulate` refuses such a profile with the same words
 * (runner/simulate), `bench` skips the pool's simulation; the editor offers no "Run serving
 * simulation" lens beside it (server/lenses.ts).
 */
export const POOL_NOT_SIMULABLE = 'pool-not-simulable';

/** A profile read from the keys that are valid, for the figures that do not depend on the others. */
export interface PartialProfile {
  /** The profile with every key that has an error left out, so defaults stand in for them. */
  profile: Profile;
  estimate: Estimate;
  /** Dotted paths of the keys left out ("kv_cache.page_size", "workload.prompt_len"). */
  invalid: string[];
}

/** What {@link validateProfileTree} found. */
export interface ProfileValidation {
  /** The resolved profile (a bare config.json gets the default profile); null when an error prevents it. */
  profile: Profile | null;
  /** The profile's estimate; null with `profile`. */
  estimate: Estimate | null;
  /**
   * When `profile` is null because some keys have errors but the rest still make a profile: that
   * profile. Null when `profile` is set, and when no profile can be made at all (a syntax error;
   * the model missing, invalid or in error).
   */
  partial: PartialProfile | null;
  /** Every problem, in the order the checks found them (not sorted). */
  problems: Problem[];
  /**
   * The parse's errors (syntax, an alias bomb, nesting too deep), also among `problems`: when
   * there are any, the tree is the parser's guess past them, and so are the other problems.
   */
  parseErrors: Problem[];
}

/** Options of {@link validateProfileTree}. */
export interface ValidateOptions {
  /** Read the file as a profile whatever its name says (the CLI's /dev/fd/63 whose text is one: readsAsProfile). */
  asProfile?: boolean;
}

/**
 * The deployment checks of a resolved profile: checkProfile's (device fit, kernel limits, pool
 * below max_model_len, vLLM version) and, for a profile with a workload, the pool its
 * simulation cannot size ({@link POOL_NOT_SIMULABLE}, at the first key of poolSizeProblem's
 * the profile holds, else 0). For a profile with no text to place them in (`bench -`'s resolved
 * Profile on stdin) as well as for a file. `blockKeyRange`, where the caller has the text's tree
 * ({@link blockKeyRangeIn}): a key whose value is a block (`workload:`, `kv_cache:`, `device:`)
 * places the problem on the key, not over the whole block (s49 newcomer-ed 4: the no-device warning
 * underlined every line of the workload, and its line:col was the block's first key's).
 */
export function deploymentProblems(profile: Profile, e: Estimate = estimate(profile), blockKeyRange: (path: string) => SourceRange | undefined = () => undefined): Problem[] {
  const problems = checkProfile(profile, e);
  const pool = profile.workload ? poolSizeProblem(profile) : null;
  if (pool) {
    const at = pool.keys.find((k) => profile.ranges[k] !== undefined);
    const range = at === undefined ? { offset: 0, length: 0 } : (blockKeyRange(at) ?? profile.ranges[at]!);
    problems.push({ severity: 'warning', code: POOL_NOT_SIMULABLE, message: pool.message, range, ...(pool.cause !== undefined ? { data: { cause: pool.cause } } : {}) });
  }
  return problems;
}

/**
 * The key's range of the property at dotted `path` in `root` ("workload", "kv_cache"), where its
 * value is a block (a mapping); undefined for a scalar or list value, or a path not written.
 */
export function blockKeyRangeIn(root: ValueNode | null, path: string): SourceRange | undefined {
  const keys = path.split('.');
  const found = getProperty(nodeAtPath(root, keys.slice(0, -1)), keys.at(-1)!);
  return found?.value.type === 'object' ? found.keyRange : undefined;
}

/**
 * The notes of one sweep point (readSweepPoint's problems, none an error, and the point's profile),
 * as a run of it says them: its read's warnings and infos and its deployment checks (checkProfile:
 * {@link deploymentProblems} less the pool a simulation cannot size, which the sweep refuses that
 * point for: runner/sweep/cli.ts), each at its {@link runSeverity}; in a sweep that benchmarks
 * nothing (job simulate or max-rate), not the kernel notes ({@link BENCHMARK_ONLY_CODES}).
 * `deployment`: the point's checkProfile problems where the caller has them ({@link sweepPointNoter}).
 */
export function sweepPointNotes(read: readonly Problem[], profile: Profile, job: SweepJob, deployment: readonly Problem[] = checkProfile(profile, estimate(profile))): Problem[] {
  return [...read.filter((p) => p.severity !== 'error'), ...deployment]
    .filter((p) => !modelledJob(job) || !BENCHMARK_ONLY_CODES.has(p.code))
    .map((p) => ({ ...p, severity: runSeverity(p) }));
}

/** A sweep point's notes from its read's problems, its profile and its axis value indices (sweepPointNoter's). */
export type PointNoter = (read: readonly Problem[], profile: Profile, digits: readonly number[]) => Problem[];

/**
 * {@link sweepPointNotes} for the points of one sweep over `axes`: the one list `attnscope sweep`
 * prints (runner/sweep/spec.ts) and the editor shows (core/config/sweep.ts sweepProblems), both
 * placed by placePointNotes. Each point's deployment checks (an estimate each, about 0.15 ms) are
 * computed once per distinct combination of its values on the axes they read: every axis but a
 * workload draw key's ({@link isDrawAxis}), so page_size x tensor_parallel_size x arrival_rate
 * of 8 x 4 x 8 points estimates 32 deployments, not 256. Points of one combination have the same
 * profile but for the draw keys' values (and ranges), which no deployment check reads (their
 * messages and ranges are the other keys': test/unit/sweep.test.ts holds each example to it).
 */
export function sweepPointNoter(axes: ReadonlyArray<{ key: string }>, job: SweepJob): PointNoter {
  const draw = axes.map((a) => isDrawAxis(a.key));
  const byDeployment = new Map<string, Problem[]>();
  return (read, profile, digits) => {
    const key = digits.filter((_, k) => !draw[k]).join(',');
    let deployment = byDeployment.get(key);
    if (deployment === undefined) byDeployment.set(key, (deployment = checkProfile(profile, estimate(profile))));
    return sweepPointNotes(read, profile, job, deployment);
  };
}

/**
 * Whether a sweep axis key is (or lies inside) one of the workload keys that say how requests are
 * drawn (TRACE_REPLACES: requests, arrival_rate, prompt_len, output_len, prefix_sharing, seed):
 * read by the simulation and the profile's read, never by the deployment checks (core/estimate).
 */
export function isDrawAxis(key: string): boolean {
  return TRACE_REPLACES.some((k) => key === `workload.${k}` || key.startsWith(`workload.${k}.`));
}

/**
 * The device-fit problem among `all` whose cause the pool problem `p` ({@link POOL_NOT_SIMULABLE},
 * data.cause: weights-exceed-device or kv-pool-empty) repeats word for word ("the KV pool has no
 * pages: " + its message), or undefined. Where both would be said, one is (s46: "weights 14.96 GiB
 * exceed ..." twice for one cause): the editor keeps the fit check's (its quick fixes raise
 * tensor_parallel_size) and leaves this out, keeping it for the lens it hides; `simulate` says its
 * refusal alone, `bench` its skipped-simulation note alone, each with the check's remedy.
 */
export function poolCause(p: Problem, all: readonly Problem[]): Problem | undefined {
  const cause = p.code === POOL_NOT_SIMULABLE ? p.data?.cause : undefined;
  return cause === undefined ? undefined : all.find((q) => q.code === cause && q.file === p.file);
}

/**
 * Every problem of the profile or config.json `parsed` (parseProfileOrConfig's tree of the file
 * at absolute path `file`), reading the files it names through `host`.
 */
export function validateProfileTree(parsed: ParsedTree, file: string, host: ProfileHost, options: ValidateOptions = {}): ProfileValidation {
  const asProfile = options.asProfile === true || isProfilePath(file);
  // A profile's read in two steps, to know whether its cross-key checks ran (they do not past an error of the schema or the model).
  const values = asProfile ? readProfileValues(parsed, file, host) : null;
  const read = values !== null ? withCrossKeyChecks(parsed.root, values) : readProfileOrConfigTree(parsed, file, host);
  const parseErrors = parsed.problems.filter((p) => p.severity === 'error');
  const out: ProfileValidation = { profile: read.value, estimate: null, partial: null, problems: read.problems, parseErrors };
  if (out.profile !== null) {
    out.estimate = estimate(out.profile);
    out.problems.push(...deploymentProblems(out.profile, out.estimate, (path) => blockKeyRangeIn(parsed.root, path)));
  } else if (values !== null) {
    const without = readWithoutInvalidKeys(parsed, out.problems, file, host);
    // Keys with schema errors stopped the read before the cross-key checks: those that read none of them.
    if (values.value === null) out.problems.push(...without.crossKey);
    out.partial = without.partial;
    // The checks that do not read an invalid key stay (the fp8 KV warning beside an error at max_model_len).
    if (out.partial !== null) out.problems.push(...checksIndependentOf(out.partial.profile, out.partial.estimate, out.partial.invalid));
  }
  if (parseErrors.length > 0) out.problems = withoutMisparsedValues(out.problems, parseErrors, parsed.root, file);
  return out;
}

/**
 * `problems` without those of the file's own text that lie in the value a parse error starts in
 * (the innermost property value holding the error's start): that value is the parser's guess past
 * the error, so its other problems describe text the user did not write. `model: ./x.json` with
 * the next line indented by mistake (`  kv_cache:`) reads as an inline model
 * `{"./x.json kv_cache": {...}}`, whose "missing hidden_size…" errors sent a newcomer to an intact
 * config.json (s38 newcomer-ed 3). The parse errors stay, as do the problems of other values and
 * of the files read (a referenced config.json's carry its `file`).
 */
function withoutMisparsedValues(problems: Problem[], parseErrors: readonly Problem[], root: ValueNode | null, file: string): Problem[] {
  const inside = (off: number, n: ValueNode) => off >= n.range.offset && off <= n.range.offset + n.range.length;
  const guessed: ValueNode[] = [];
  for (const e of parseErrors) {
    let found: ValueNode | null = null;
    for (let node = root; node !== null; ) {
      const next: ValueNode | undefined = node.properties?.find((p) => inside(e.range.offset, p.value))?.value ?? node.items?.find((v) => inside(e.range.offset, v));
      if (next === undefined) break;
      found = next;
      node = next;
    }
    if (found !== null) guessed.push(found);
  }
  if (guessed.length === 0) return problems;
  return problems.filter(
    (p) => parseErrors.includes(p) || (p.file !== undefined && p.file !== file) || !guessed.some((n) => p.range.offset >= n.range.offset && p.range.offset < n.range.offset + Math.max(1, n.range.length)),
  );
}

/**
 * validateProfileTree of a file's text (the CLI's entry): a profile by its name, or by its text
 * when the name says neither (/dev/fd/63: readsAsProfile), else a config.json.
 */
export function validateProfileText(text: string, file: string, host: ProfileHost, options: ValidateOptions = {}): ProfileValidation {
  const asProfile = isProfilePath(file) || readsAsProfile(file, text);
  return validateProfileTree(asProfile ? parseProfileText(text, file) : parseProfileOrConfig(text, file), file, host, { ...options, asProfile });
}

/**
 * The severity a problem has in a CLI run: its own, except that a deployment check's error
 * (a code of CHECK_KEYS: weights or the KV pool not fitting the device, head_dim or page_size
 * past the kernels) is a warning, because the run's figures are the answer to whether it fits.
 * A command that cannot work with such a profile refuses at its own step: simulate a pool it
 * cannot size, bench a case past the CPU kernels' head_dim or this machine's memory.
 * Every other error (syntax, schema, the model's config, what vLLM refuses to start with:
 * tensor_parallel_size vs the heads, max_model_len past the model's, max_num_batched_tokens below
 * max_num_seqs, a min above its max) stops the run with exit 2. DESIGN.md "Errors and warnings".
 */
export function runSeverity(p: Problem): Severity {
  return p.severity === 'error' && isDeploymentProblem(p) ? 'warning' : p.severity;
}

/**
 * Codes of {@link deploymentProblems} that concern only the kernel benchmark (which kernel runs a
 * head_dim, page_size or dtype; how MLA and logit soft-capping are timed): a simulation benchmarks
 * nothing, its step times being the roofline's on the profile's GPU or its step_time (runner/simulate/step-time.ts),
 * so `simulate` and a `job: simulate` sweep leave them out (s34 newcomer-cli 14: "it is benchmarked
 * on the CPU" under simulate).
 */
export const BENCHMARK_ONLY_CODES: ReadonlySet<string> = new Set(['head-dim-unsupported', 'page-size-unsupported', 'dtype-unsupported', 'mla-prefill-head-dim', 'mla-decode-head-dim', 'attn-logit-softcapping', 'kv-dtype-estimate-only']);

/**
 * Those of {@link BENCHMARK_ONLY_CODES} that are warnings about the benchmark alone, left out by
 * `estimate` and `simulate` whatever their severity (the others' warnings, a kernel that cannot run
 * the profile's page_size on its own backend, are still said there): an fp8 KV cache that "the
 * benchmark runs in bf16" is no concern of a command that runs no kernel and counts 1 byte per
 * element (s50 newcomer LOW-9). The editor says it, the profile being the benchmark's too.
 */
export const BENCHMARK_ONLY_WARNINGS: ReadonlySet<string> = new Set(['kv-dtype-estimate-only']);

/** True for a problem of {@link deploymentProblems} (a code of CHECK_KEYS, or the pool a simulation cannot size). */
export function isDeploymentProblem(p: Problem): boolean {
  return CHECK_KEYS[p.code] !== undefined || p.code === POOL_NOT_SIMULABLE;
}

/** Rounds of leaving keys out: a key left out can reveal one more (min > max -> "needs min"). */
const PARTIAL_ROUNDS = 3;

/** What {@link readWithoutInvalidKeys} found. */
interface WithoutInvalidKeys {
  partial: PartialProfile | null;
  /**
   * The cross-key checks (core/config/profileChecks.ts) of the first tree left that reads without
   * a schema error, but those that read a key left out: where the file's schema errors stopped
   * its read before these checks, they are its own. [] when no tree read.
   */
  crossKey: Problem[];
}

/**
 * The profile of `parsed` with every key that holds an error left out, so that one invalid or
 * half-typed value does not cost the figures and the checks of the keys that are fine. Each
 * error's key is the innermost property holding the start of its range; the tree without those
 * properties is read again, up to PARTIAL_ROUNDS times. No profile when that cannot work: a syntax
 * error (the tree may not be what the user wrote), an error in the model (inline, or the
 * referenced config.json), an error outside any key, or errors left after the last round.
 */
function readWithoutInvalidKeys(parsed: ParsedTree, found: readonly Problem[], file: string, host: ProfileHost): WithoutInvalidKeys {
  let crossKey: Problem[] | null = null;
  const none = (): WithoutInvalidKeys => ({ partial: null, crossKey: crossKey ?? [] });
  if (parsed.root?.type !== 'object' || parsed.problems.some((p) => p.severity === 'error')) return none();
  let tree: ValueNode = parsed.root;
  let problems = found;
  const invalid: string[] = [];
  for (let round = 0; round < PARTIAL_ROUNDS; round++) {
    const drop = new Set<PropertyNode>();
    for (const p of problems) {
      if (p.severity !== 'error') continue;
      if (p.file !== undefined && p.file !== file) return none();
      const at = propertyAt(tree, p.range.offset);
      if (at === null || at.path[0] === 'model') return none();
      if (!drop.has(at.property)) invalid.push(at.path.join('.'));
      drop.add(at.property);
    }
    tree = withoutProperties(tree, drop);
    const values = readProfileValues({ root: tree, problems: [] }, file, host);
    const read = withCrossKeyChecks(tree, values, invalid);
    // Only the cross-key checks of the first tree that reads: a later round leaves out the keys they put in error.
    if (values.value !== null) crossKey ??= read.problems.slice(values.problems.length);
    if (read.value !== null) return { partial: { profile: read.value, estimate: estimate(read.value), invalid }, crossKey: crossKey ?? [] };
    problems = read.problems;
  }
  return none();
}

/** A copy of `node` without the properties in `drop` (shared subtrees where nothing is dropped). */
function withoutProperties(node: ValueNode, drop: ReadonlySet<PropertyNode>): ValueNode {
  if (node.properties) {
    return { ...node, properties: node.properties.filter((p) => !drop.has(p)).map((p) => ({ ...p, value: withoutProperties(p.value, drop) })) };
  }
  if (node.items) return { ...node, items: node.items.map((item) => withoutProperties(item, drop)) };
  return node;
}

/**
 * True for the profile's summary at `model:` of its config.json's errors (model-config-invalid:
 * "the model config ... has 2 errors; first: ...") when `all` holds those errors themselves: the
 * CLI prints each at its own line of that file, the editor shows each at `model:` with a link to
 * its place (server/diagnostics.ts), so the summary would say the first one twice (s40
 * newcomer-ed: three Problems entries for one mistake).
 */
export function summarisedElsewhere(p: Problem, all: readonly Problem[]): boolean {
  return p.code === 'model-config-invalid' && all.some((q) => q.severity === 'error' && q.file !== undefined && q.file === p.data?.path);
}

/** What a picked file is for: a benchmark, a serving simulation, a sweep, or a memory estimate (Show memory breakdown). */
export type PickJob = 'bench' | 'simulate' | 'sweep' | 'estimate';

/** Every PickJob, in one list (the language server keeps a file's answer for each: server/workspace.ts closedFileReasons). */
export const PICK_JOBS: readonly PickJob[] = ['bench', 'simulate', 'sweep', 'estimate'];

/**
 * Why a command of `job` cannot run the file whose resolve (attnscope/resolveProfile: the
 * language server's Profile and problems) is `resolved`, in the editor's words; null when it runs.
 * No profile read: its first error a run stops at (core/validate.ts runSeverity: the editor's
 * errors but the deployment checks, whose figures a run is the answer to), as the command's own
 * refusal says it. A simulation also needs a `workload:` block and a pool it can size
 * (core/estimate poolSizeProblem: an encoder has no KV cache; the weights leave no page; more pages
 * than it takes), the warning the editor shows there and the reason `simulate` refuses. The
 * command palette's pick offered such files unmarked (s46 lead): picking one ended in a refusal.
 * The language server answers it for the pick's files in one request (attnscope/cannotRun).
 */
export function cannotRun(job: PickJob, resolved: { profile: Profile | null; problems: readonly Problem[] }): string | null {
  const { profile, problems } = resolved;
  if (!profile) return (problems.find((p) => runSeverity(p) === 'error') ?? problems[0])?.message ?? 'the file does not describe a model';
  if (job !== 'simulate') return null;
  if (!profile.workload) return 'no `workload:` block to simulate';
  return poolSizeProblem(profile)?.message ?? null;
}
