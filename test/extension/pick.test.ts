/**
 * Which files a command offers when no such file is the active editor's (extension/pick.ts): a
 * serving simulation or a sweep needs a profile's `workload:` / `sweep:` block, which a config.json
 * never has (s33 newcomer-ed: "Run serving simulation" offered all 41 files, the 20 config.json too).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { minimatch } from 'minimatch';
import type { ProfileHost } from '../../core/config/index';
import { validateProfileText } from '../../core/validate';
import { acceptedItem, configPickItem, filePickItem, findPickFiles, isTarget, MORE_HOW, morePickItem, PICK_FILE_LIMIT, runButtonFile, runPickItems, showThenFill, sweepProfileText, targetGlob, type AcceptingPick, type FillablePick, type FindFiles } from '../../extension/pick';
import type { RunListEntry } from '../../core/protocol/webview';
import { setWorkspaceRoots, workspaceProfiles } from '../../server/modelPaths';
import { cannotRun } from '../../core/validate';
import { tempDir } from '../fixtures/tmp';

// VS Code's findFiles reads `{a,b}` alternatives as minimatch's brace expansion does.
const offered = (glob: string, name: string): boolean => minimatch(name, glob, { dot: true });

test('a simulation or a sweep offers profiles only; a benchmark or a memory estimate profiles and configs', () => {
  const profiles = ['llama.attn.yaml', 'serve/llama.attn.yml', 'a/b/qwen.attn.json'];
  const configs = ['config.json', 'configs/Qwen2-7B.config.json', 'models/llama/config.json'];
  const neither = ['package.json', 'llama.yaml', 'tsconfig.json'];
  for (const name of profiles) {
    assert.ok(offered(targetGlob('profile'), name) && isTarget('profile', name), `${name}: a profile, offered to simulate`);
    assert.ok(offered(targetGlob('model'), name) && isTarget('model', name), `${name}: a profile, offered to benchmark`);
  }
  for (const name of configs) {
    assert.ok(!offered(targetGlob('profile'), name) && !isTarget('profile', name), `${name}: a config (no workload), not offered to simulate`);
    assert.ok(offered(targetGlob('model'), name) && isTarget('model', name), `${name}: a config, offered to benchmark`);
  }
  for (const name of neither) {
    assert.ok(!offered(targetGlob('model'), name) && !isTarget('model', name), `${name}: neither`);
  }
});

// s34 act34 4b: the dashboard's Run button, with no run of a file shown, ran the command without a
// file; the click had given the webview the focus, so the command saw no active editor and always
// opened the workspace pick. It now passes the file of the text editor active last.
test("the Run button of a dashboard showing no run runs the last active editor's file while it is open and of the right kind", () => {
  const profile = '/ws/beta/e2e.attn.yaml';
  const config = '/ws/alpha/llama/config.json';
  const open = [profile, config, '/ws/notes.txt'];
  assert.equal(runButtonFile('model', profile, open), profile);
  assert.equal(runButtonFile('profile', profile, open), profile);
  assert.equal(runButtonFile('model', config, open), config, 'a config.json is benchmarked');
  assert.equal(runButtonFile('profile', config, open), undefined, 'a config.json has no workload to simulate: the pick');
  assert.equal(runButtonFile('model', '/ws/notes.txt', open), undefined, 'not a model file: the pick');
  assert.equal(runButtonFile('model', '/ws/gone.attn.yaml', open), undefined, 'closed since: the pick');
  assert.equal(runButtonFile('model', undefined, open), undefined, 'no text editor was active: the pick');
});

test('a picked file reads its name and its folder, no folder for a file at the top (s44 newcomer-ed F17: "gpt-oss-20b.attn.yaml gpt-oss-20b.attn.yaml")', () => {
  assert.deepEqual(filePickItem('/ws/gpt-oss-20b.attn.yaml', 'gpt-oss-20b.attn.yaml'), { label: 'gpt-oss-20b.attn.yaml' });
  assert.deepEqual(filePickItem('/ws/hf/Llama-3.1-70B/config.json', 'hf/Llama-3.1-70B/config.json'), { label: 'config.json', description: 'hf/Llama-3.1-70B' });
});

test('New profile\'s model pick names a config by the model: an X.config.json by its file, a config.json by its folder (s47 newcomer-ed F2: all "hf")', () => {
  assert.deepEqual(configPickItem('/ws/hf/Mixtral-8x7B-v0.1.config.json', 'hf/Mixtral-8x7B-v0.1.config.json'), { label: 'Mixtral-8x7B-v0.1', description: 'hf/Mixtral-8x7B-v0.1.config.json' });
  assert.deepEqual(configPickItem('/ws/hf/DeepSeek-V3.config.json', 'hf/DeepSeek-V3.config.json').label, 'DeepSeek-V3');
  assert.deepEqual(configPickItem('/ws/examples/llama-3.1-8b/config.json', 'examples/llama-3.1-8b/config.json').label, 'llama-3.1-8b');
  assert.deepEqual(configPickItem('/c/models--meta-llama--Llama-3.1-8B/snapshots/0e9e/config.json', '/c/models--meta-llama--Llama-3.1-8B/snapshots/0e9e/config.json').label, 'meta-llama/Llama-3.1-8B');
});

// s46 lead: the palette's pick offered broken profiles, and encoders to simulate, unmarked: each then ended in a refusal.
test('the pick marks a file its command cannot run with the reason the editor and the run give', () => {
  const dir = tempDir('attnscope-pick-');
  const host: ProfileHost = { readFile: (p) => { try { return readFileSync(p, 'utf8'); } catch { return null; } } };
  const resolved = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return validateProfileText(text, file, host);
  };
  const llama = resolve('examples/llama-3.1-8b/config.json');
  const bert = resolve('test/fixtures/configs/bert-base-uncased.config.json');
  const workload = 'workload: { requests: 100, arrival_rate: 2, prompt_len: { dist: fixed, value: 512 }, output_len: { dist: fixed, value: 128 }, max_num_seqs: 16, max_model_len: 4096 }\n';
  const served = resolved('served.attn.yaml', `model: ${llama}\ndtype: bf16\ndevice: { gpu: H100 SXM }\n${workload}`);
  assert.deepEqual((['bench', 'simulate', 'sweep', 'estimate'] as const).map((job) => cannotRun(job, served)), [null, null, null, null]);
  // A benchmark needs no workload; a simulation does.
  const bare = resolved('bare.attn.yaml', `model: ${llama}\ndtype: bf16\ndevice: { gpu: H100 SXM }\n`);
  assert.equal(cannotRun('bench', bare), null);
  assert.equal(cannotRun('simulate', bare), 'no `workload:` block to simulate');
  // An encoder benchmarks (its prefill) but has no KV cache to simulate: poolSizeProblem's words, the editor's warning at `model`.
  const encoder = resolved('bert.attn.yaml', `model: ${bert}\ndtype: bf16\ndevice: { gpu: H100 SXM }\n${workload.replace('value: 512', 'value: 256').replace('4096', '512')}`);
  assert.equal(cannotRun('bench', encoder), null);
  assert.equal(cannotRun('simulate', encoder), 'bert is an encoder: it has no KV cache to simulate');
  // A schema error stops every run: its message, the one the editor shows at the value.
  const broken = resolved('broken.attn.yaml', `model: ${llama}\ndtype: bf17\ndevice: { gpu: H100 SXM }\n${workload}`);
  const error = broken.problems.find((p) => p.severity === 'error');
  assert.ok(error, 'dtype bf17 is an error');
  for (const job of ['bench', 'simulate', 'sweep', 'estimate'] as const) assert.equal(cannotRun(job, broken), error.message);
  // A deployment check's error (weights over the GPU) is a warning to a run (runSeverity): the benchmark runs, the simulation has no page.
  const tooBig = resolved('small.attn.yaml', `model: ${llama}\ndtype: bf16\ndevice: { memory_gib: 8 }\n${workload}`);
  assert.equal(cannotRun('bench', tooBig), null);
  assert.match(cannotRun('simulate', tooBig) ?? '', /^the KV pool has no pages: /);
});

// A workspace of `paths` as VS Code's findFiles searches it: the include glob, the exclude glob, at most `max` in its own order (not sorted).
const workspaceOf = (paths: readonly string[]): FindFiles<string> => async (include, exclude, max) =>
  paths.filter((p) => minimatch(p, include, { dot: true }) && !minimatch(p, exclude, { dot: true })).slice(0, max);

// s49 newcomer-ed 1: findFiles(…, 200) cut 255 profiles to 200 with nothing said; the root
// page-size.attn.yaml and all 20 hf/ configs were unpickable. The workspace as that test built it:
// examples/' 5 profiles at the root, 50 copies under many/p01..p50, 20 hf/<Model>/config.json.
test('a pick lists every one of 255 profiles and 20 configs, the top-level ones first (s49: 200 at most, the root ones cut)', async () => {
  const examples = ['gpt-oss-20b.attn.yaml', 'llama-3.1-8b.attn.yaml', 'page-size.attn.yaml', 'qwen3-30b-a3b.attn.json', 'vllm-llama-3.1-8b-a100-40gb.attn.yaml'];
  const many = Array.from({ length: 50 }, (_, i) => examples.map((e) => `many/p${String(i + 1).padStart(2, '0')}/${e}`)).flat();
  const hf = Array.from({ length: 20 }, (_, i) => `hf/Model-${i}/config.json`);
  // findFiles' order is the search's, here the nested files first: a cap would drop the root ones.
  const find = workspaceOf([...many, ...hf, ...examples, 'node_modules/x/y.attn.yaml', 'package.json']);
  // The relative path (asRelativePath in the extension) is asked once per file: it sorts the list and labels its row.
  let relatives = 0;
  const relative = (p: string): string => {
    relatives++;
    return p.toUpperCase();
  };
  const profiles = await findPickFiles(find, targetGlob('profile'), relative);
  assert.equal(profiles.files.length, 255, '5 + 50 × 5 profiles');
  assert.equal(relatives, 255, 'one relative path per file found');
  assert.ok(profiles.files.every((f) => f.relative === f.file.toUpperCase()), 'each file comes with its own relative path');
  assert.equal(profiles.more, false);
  assert.deepEqual(profiles.files.slice(0, 5).map((f) => f.file), [...examples].sort(), 'the top-level profiles first');
  assert.equal(profiles.files.at(-1)?.file, 'many/p50/vllm-llama-3.1-8b-a100-40gb.attn.yaml', 'the last profile by path is offered');
  const models = await findPickFiles(find, targetGlob('model'), (p) => p);
  assert.equal(models.files.length, 275, '255 profiles + 20 configs');
  assert.ok(hf.every((c) => models.files.some((f) => f.file === c)), 'every hf/ config is offered to show the memory of');
});

// s49 review: the pick skipped node_modules, .git and .attnscope, the server's background pass every
// hidden folder (and __pycache__), so a profile under .venv/ was listed but not answered before the
// pick. Both now read core/config/fileKinds.ts SKIPPED_FOLDERS; this fails when either rule drifts.
test('a pick lists the profiles the language server\'s background pass answers: both skip the same folders', async (t) => {
  const dir = tempDir('attnscope-skip-');
  // Hidden (.git, our .attnscope, .venv, .cache), dependencies and bytecode skipped; names that only look alike are not.
  const skipped = ['.git', '.attnscope', '.venv', '.cache', 'node_modules', '__pycache__', 'sub/node_modules', 'sub/.hidden'];
  const kept = ['', 'sub', 'a.b', 'node_modules2', 'x.git', 'pycache', 'sub/deep'];
  const rel: string[] = [];
  for (const folder of [...skipped, ...kept]) {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, 'p.attn.yaml'), 'model: ./config.json\n');
    rel.push(folder === '' ? 'p.attn.yaml' : `${folder}/p.attn.yaml`);
  }
  const expected = kept.map((f) => (f === '' ? 'p.attn.yaml' : `${f}/p.attn.yaml`)).sort();
  const picked = (await findPickFiles(workspaceOf(rel), targetGlob('profile'), (p) => p)).files.map((f) => f.file).sort();
  assert.deepEqual(picked, expected, 'the pick (its findFiles exclude glob)');
  setWorkspaceRoots([dir]);
  t.after(() => setWorkspaceRoots([]));
  const walked = workspaceProfiles().map((p) => relative(dir, p).split(sep).join('/')).sort();
  assert.deepEqual(walked, expected, 'the background pass (its walk of the workspace folders)');
});

test('past PICK_FILE_LIMIT files a pick says there are more (one more is asked of the search to know)', async () => {
  const asked: number[] = [];
  const paths = Array.from({ length: PICK_FILE_LIMIT + 3 }, (_, i) => `d/p${i}.attn.yaml`);
  const find: FindFiles<string> = async (include, exclude, max) => {
    asked.push(max);
    return workspaceOf(paths)(include, exclude, max);
  };
  const over = await findPickFiles(find, targetGlob('profile'), (p) => p);
  assert.deepEqual([over.files.length, over.more, asked], [PICK_FILE_LIMIT, true, [PICK_FILE_LIMIT + 1]]);
  const exact = await findPickFiles(workspaceOf(paths.slice(0, PICK_FILE_LIMIT)), targetGlob('profile'), (p) => p);
  assert.deepEqual([exact.files.length, exact.more], [PICK_FILE_LIMIT, false], 'exactly the limit: nothing more to say');
});

/** A quick pick that records what was shown when, and can be closed by the test (as Escape does). */
function fakePick(): FillablePick<string> & { log: string[]; hide(): void } {
  const hides: Array<() => void> = [];
  const pick = {
    items: [] as readonly string[],
    busy: false,
    placeholder: undefined as string | undefined,
    log: [] as string[],
    show() {
      pick.log.push(`show busy=${pick.busy} placeholder=${pick.placeholder}`);
    },
    onDidHide(listener: () => void) {
      hides.push(listener);
      return { dispose: () => hides.splice(hides.indexOf(listener), 1) };
    },
    hide() {
      for (const h of [...hides]) h();
    },
  };
  return pick;
}

// s49 newcomer-ed 2: the search came before the pick, so the first command of a window showed
// nothing for ~7 s while VS Code's search warmed up.
test('the pick shows, busy, before the workspace search answers; then it is no longer busy', async () => {
  const pick = fakePick();
  let answer!: (files: string[]) => void;
  const search = new Promise<string[]>((done) => (answer = done));
  const filled = showThenFill(pick, 'finding profiles…', () => {
    pick.log.push('search started');
    return search;
  });
  assert.deepEqual(pick.log, ['show busy=true placeholder=finding profiles…', 'search started'], 'shown before the search starts');
  assert.equal(pick.busy, true, 'busy while the search runs');
  answer(['a.attn.yaml']);
  assert.deepEqual(await filled, ['a.attn.yaml']);
  assert.deepEqual([pick.busy, pick.placeholder], [false, undefined]);
});

test('a pick closed while the search runs gets no answer', async () => {
  const pick = fakePick();
  let answer!: (files: string[]) => void;
  const filled = showThenFill(pick, 'finding profiles…', () => new Promise<string[]>((done) => (answer = done)));
  pick.hide();
  answer(['a.attn.yaml']);
  assert.equal(await filled, undefined);
});

test('every workspace file search of the extension goes through findPickFiles (s49: Check vLLM log kept its own cap of 200)', () => {
  // A pick that calls workspace.findFiles itself lists at most what it asks for, with nothing said past it:
  // edb3090e raised the palette's picks past 200, and Check vLLM log's model pick still stopped there.
  const dir = resolve('extension');
  const callers = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'pick.ts' && /workspace\.findFiles\(/.test(readFileSync(join(dir, f), 'utf8')));
  assert.deepEqual(callers, []);
  assert.match(readFileSync(join(dir, 'vllmLog.ts'), 'utf8'), /findPickFiles\(vscode\.workspace\.findFiles,/);
  // A row's relative path is the one findPickFiles computed (PickFile.relative): asRelativePath ran twice per file.
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.includes('workspace.asRelativePath(uri, false)'))) {
      assert.match(line, /findPickFiles\(/, `${f}: a pick's relative path computed outside findPickFiles: ${line.trim()}`);
    }
  }
});

/** A quick pick the test accepts on a row (Enter) or closes (Escape), as VS Code's QuickPick does. */
function acceptingPick<T>(): AcceptingPick<T> & { accept(item: T): void; hide(): void } {
  const accepts: Array<() => void> = [];
  const hides: Array<() => void> = [];
  const on = (list: Array<() => void>) => (listener: () => void) => {
    list.push(listener);
    return { dispose: () => list.splice(list.indexOf(listener), 1) };
  };
  let selected: T[] = [];
  return {
    get selectedItems() {
      return selected;
    },
    onDidAccept: on(accepts),
    onDidHide: on(hides),
    accept(item: T) {
      selected = [item];
      for (const a of [...accepts]) a();
    },
    hide() {
      for (const h of [...hides]) h();
    },
  };
}

// s49 review 3: picking "Only the first 5,000 … are listed" returned nothing, silently (a command's
// pick, Check vLLM log's), and in New profile's config pick opened Browse…, a row with no file as it.
test('picking the "Only the first 5,000" row is no pick: it says how to reach another file and the pick stays open for a listed one', async () => {
  type Row = { label: string; uri?: string; more?: string };
  const file: Row = { label: 'a.attn.yaml', uri: '/ws/a.attn.yaml' };
  const more: Row = morePickItem('profiles', MORE_HOW.command);
  const said: string[] = [];
  const pick = acceptingPick<Row>();
  let answer: Row | undefined | 'pending' = 'pending';
  const picked = acceptedItem(pick, (m) => said.push(m)).then((r) => (answer = r));
  pick.accept(more);
  await Promise.resolve();
  assert.equal(answer, 'pending', 'the row answers nothing: the pick stays open');
  assert.deepEqual(said, ['AttnScope: only the first 5,000 profiles are listed; open another from the Explorer and run the command from its editor (or its code lens).']);
  pick.accept(file);
  assert.equal(await picked, file, 'a listed file picked after it is the answer');

  // New profile: the row is not Browse… (no file either), and it says Browse… is the way.
  const browse: Row = { label: '$(folder-opened) Browse…' };
  const configs = acceptingPick<Row>();
  const chosen = acceptedItem(configs, (m) => said.push(m));
  configs.accept(morePickItem('configs', MORE_HOW.newProfile));
  assert.match(said.at(-1)!, /^AttnScope: only the first 5,000 configs are listed; .*run New profile from its editor, or pick Browse…/);
  configs.accept(browse);
  assert.equal(await chosen, browse);

  // Closed after it: no answer, as Escape on any pick.
  const closed = acceptingPick<Row>();
  const none = acceptedItem(closed, (m) => said.push(m));
  closed.accept(morePickItem('profiles and configs', MORE_HOW.vllmLog));
  closed.hide();
  assert.equal(await none, undefined);
  assert.match(said.at(-1)!, /^AttnScope: only the first 5,000 profiles and configs are listed; open the folder that holds/);
});

test('every workspace pick answers through acceptedItem, so none acts on the "Only the first" row (s49 review 3)', () => {
  // A pick that resolves on onDidAccept itself, or a showQuickPick, returns the row like any other.
  for (const f of ['commands.ts', 'vllmLog.ts']) {
    const text = readFileSync(join(resolve('extension'), f), 'utf8');
    const rows = (text.match(/morePickItem\(/g) ?? []).length;
    assert.ok(rows > 0, f);
    assert.equal((text.match(/acceptedItem\(pick,/g) ?? []).length, rows, `${f}: each pick with the row accepts through acceptedItem`);
    assert.doesNotMatch(text, /onDidAccept\(\(\) => done/, f);
  }
});

test('a profile with a sweep: key, valid or not, is one the dashboard\'s Run button sweeps; none other is (s49 newcomer-ed 9)', () => {
  assert.equal(sweepProfileText('/ws/page-size.attn.yaml', 'model: ./llama/config.json\nsweep:\n  axes: { kv_cache.page_size: [16, 32] }\n'), true);
  assert.equal(sweepProfileText('/ws/p.attn.json', '{ "model": "./c.json", "sweep": { "axes": {} } }'), true, 'an empty block still reads as a sweep, as its lens and error do');
  assert.equal(sweepProfileText('/ws/llama.attn.yaml', 'model: ./llama/config.json\n# sweep: later\nworkload: { requests: 10 }\n'), false, 'a comment is no key');
  assert.equal(sweepProfileText('/ws/llama.attn.yaml', 'model: ./llama/config.json\nworkload: { sweep: 1 }\n'), false, 'a nested key is not the block');
  assert.equal(sweepProfileText('/ws/config.json', '{ "sweep": 1 }'), false, 'a config.json is no profile');
});

// s52 Left 2: the palette's Compare runs pick wrote "Dec 6, 2026, 11:26:05 PM" on every row, the model first, where History's
// Compare pickers lead with the profile file and write the time as History's rows do.
test('the palette\'s run picks lead with the profile file and write the time as History does: seconds only where two runs share a minute, no year', () => {
  const name = 'llama-3.1-8b · llama-3.1-8b.attn.yaml · simulation';
  const runs: RunListEntry[] = [
    { id: 'b', name, createdAt: '2026-12-06T14:26:40.000Z', status: 'ok', cases: 0, requests: 200, kind: 'simulate', figure: 'TTFT p99 312 ms', origin: 'editor' },
    { id: 'a', name, createdAt: '2026-12-06T14:26:05.000Z', status: 'cancelled', cases: 0, requests: 200, kind: 'simulate', figure: 'TTFT p99 1.20 s', origin: 'cli' },
    // An old saved run: no kind, figure nor origin; a bare file name; in workspace folder ws2; a window reload stopped it.
    { id: 'c', name: 'run.attn.yaml', createdAt: '2026-12-01T22:02:29.363Z', status: 'cancelled', interrupted: true, cases: 3, build: 'avx2 · 2 threads', folder: 'ws2' },
  ];
  const items = runPickItems(runs);
  assert.deepEqual(items.map((i) => i.label), ['llama-3.1-8b.attn.yaml · simulation', 'llama-3.1-8b.attn.yaml · simulation', 'ws2: run.attn.yaml']);
  const parts = items.map((i) => i.description.split(' · '));
  // Whatever this machine's zone: 40 and 05 seconds, one minute apart from no other run's for the third (its minute alone), never the year.
  assert.match(parts[0]![1]!, /:40\b/);
  assert.match(parts[1]![1]!, /:05\b/);
  assert.doesNotMatch(parts[2]![0]!, /:29\b/);
  for (const p of parts) assert.doesNotMatch(p.join(' · '), /2026/);
  assert.deepEqual(parts.map((p) => p.filter((_, i) => !(p === parts[2] ? i === 0 : i === 1))), [
    ['TTFT p99 312 ms', 'simulation', 'editor', 'llama-3.1-8b'],
    ['TTFT p99 1.20 s', 'simulation', 'cancelled', 'CLI', 'llama-3.1-8b'],
    ['benchmark', 'interrupted (window reloaded or closed)', 'avx2', '2 threads'],
  ]);
});
