/** Run history (extension/history.ts) and export (extension/exportRun.ts) on a temp folder. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runToCsv } from '../../extension/exportRun';
import { kernelBuildText } from '../../core/format';
import { keptInHistory } from '../../core/protocol/run';
import { findRun, listRuns, listRunsIn, loadRun, newestFirst, partialRun, rerunSource, runId, saveRun, saveRunSync } from '../../extension/history';
import { listingsWritten, persistListings } from '../../extension/listedFiles';
import { run as recorded } from '../fixtures/run';
import { describeMachine } from '../../runner/environment';
import { saveInChild, SAVE_LIMIT_MS } from '../fixtures/saveInChild';
import { tempDir } from '../fixtures/tmp';

// The recorded run at a known time, so that its ids can be written out by hand.
const run = { ...recorded, createdAt: '2026-11-29T13:40:12.345Z' };

describe('run history', () => {
  it('names runs <yyyymmdd-hhmmss>-<name> in UTC, without the profile extension', () => {
    assert.equal(runId('2026-11-29T13:40:12.345Z', 'llama-3.1-8b.attn.yaml'), '20261129-134012-llama-3.1-8b.attn');
    assert.equal(runId('2026-01-02T03:04:05Z', '../evil name/config.json'), '20260102-030405-evil_name_config');
  });

  it('saves atomically (no temp file left), lists newest first, loads back equal', async () => {
    const dir = tempDir('attnscope-history-');
    const older = { ...run, createdAt: '2026-11-29T10:00:00.000Z' };
    const idA = await saveRun(join(dir, 'runs'), older);
    const idB = await saveRun(join(dir, 'runs'), run);
    const idC = await saveRun(join(dir, 'runs'), run); // same second: gets a suffix, does not overwrite
    assert.deepEqual([idA, idB, idC], ['20261129-100000-run.attn', '20261129-134012-run.attn', '20261129-134012-2-run.attn']);
    assert.deepEqual(readdirSync(join(dir, 'runs')).sort(), [`${idA}.json`, `${idB}.json`, `${idC}.json`].sort());
    writeFileSync(join(dir, 'runs', 'notes.json'), '{"not":"a run"}');
    writeFileSync(join(dir, 'runs', '20261129-100000-cut.json'), '{"schema": 1, "na');
    writeFileSync(join(dir, 'runs', '20261129-100000-other.json'), '{"schema": 1, "name": "x"}');
    const { runs, skipped } = await listRuns(join(dir, 'runs'));
    assert.deepEqual(runs.map((r) => r.id), [idC, idB, idA]);
    assert.deepEqual(runs[0], { id: idC, name: 'llama-3.1-8b · run.attn.yaml · full', setup: ['gpu H100 SXM', 'tp 1', 'pp 1', 'dp 1', 'dtype bf16', 'kv auto', 'page_size 16', 'requests 400', 'arrival_rate 4', 'max_model_len 8192'], createdAt: run.createdAt, status: 'ok', cases: run.cases.length, kind: 'bench', build: 'avx2 · 2 threads', figure: 'prefill B1 N512 34.9 ms' }); // its longest case: the recorded prefill, median 34,856,032 ns; the recorded run predates RunResult.kind (a benchmark), RunResult.quick (full) and nativeBuild (no build named); the CLI named it by its file, History as the editor names runs
    // Each skipped file with why, in the folder's order.
    assert.deepEqual(skipped.sort(), [
      `20261129-100000-cut.json: not JSON (${(() => { try { JSON.parse('{"schema": 1, "na'); } catch (e) { return (e as Error).message; } })()})`,
      '20261129-100000-other.json: not an AttnScope run (schema 1 with a name and cases)',
      'notes.json: not an AttnScope run (schema 1 with a name and cases)',
    ]);
    assert.deepEqual(await loadRun(join(dir, 'runs'), idB), run);
  });

  it('saves synchronously (deactivate: a run a reload interrupts) under the same ids as saveRun, beside its runs', async () => {
    const dir = join(tempDir('attnscope-history-'), 'runs');
    const idA = await saveRun(dir, run);
    const idB = saveRunSync(dir, run); // same second as A: suffixed, A kept
    const idC = saveRunSync(dir, { ...run, createdAt: '2026-11-29T13:40:13.000Z' });
    assert.deepEqual([idA, idB, idC], ['20261129-134012-run.attn', '20261129-134012-2-run.attn', '20261129-134013-run.attn']);
    assert.deepEqual(readdirSync(dir).sort(), [`${idA}.json`, `${idB}.json`, `${idC}.json`].sort(), 'no temp file left');
    assert.deepEqual(await loadRun(dir, idB), run);
    assert.deepEqual((await listRuns(dir)).runs.map((r) => r.id), [idC, idB, idA]);
  });

  // s52 newcomer-ed 1: attnscope.historyFolder /proc/nope/runs. procfs answers ENOENT to a mkdir of
  // /proc/nope, which Node's recursive mkdir read as "parent missing" and retried for ever: saveRun
  // never settled (the run held the one-run slot after its runner had ended), saveRunSync never returned.
  it('a history folder that cannot be made rejects at once, naming the folder the file system refused, with its error code; never hangs', { timeout: 2 * SAVE_LIMIT_MS + 10_000 }, async () => {
    const proc = '/proc/attnscope-s52-nope/runs';
    // Under a file: ENOTDIR, as the OS says it.
    const file = join(tempDir('attnscope-history-'), 'a-file');
    writeFileSync(file, 'x');
    // Each save in a child process killed after SAVE_LIMIT_MS: the hang (a libuv thread looping) kept this file's process alive
    // past node:test's timeout. Fails before writing: the run's time and name (its id) are all it reads.
    const folders = [proc, join(file, 'runs')];
    for (const sync of [false, true]) {
      const [atProc, underFile] = await saveInChild(folders, { createdAt: run.createdAt, name: run.name }, sync);
      // /proc exists; /proc/attnscope-s52-nope is what the file system would not make.
      assert.ok(atProc && 'error' in atProc, `saved under /proc: ${JSON.stringify(atProc)}`);
      assert.equal(atProc.error.code, 'ENOENT');
      assert.match(atProc.error.message, /mkdir '\/proc\/attnscope-s52-nope'/);
      assert.match(atProc.error.message, /\/proc exists, but its file system makes no folder there/);
      assert.deepEqual(underFile, { error: { code: 'ENOTDIR', message: `ENOTDIR: not a directory, mkdir '${join(file, 'runs')}'` } });
    }
  });

  it('makes a missing history folder with its parents (three levels), and saves into one that is there', async () => {
    const dir = join(tempDir('attnscope-history-'), 'a', 'b', 'runs');
    const id = await saveRun(dir, run);
    assert.ok(statSync(join(dir, '..', '..')).isDirectory());
    assert.equal(saveRunSync(join(dir, 'c', 'd'), run), id);
    assert.equal(await saveRun(dir, run), id.replace(/^([0-9]{8}-[0-9]{6})/, '$1-2'));
  });

  it('refuses ids that are not run ids (no path traversal)', async () => {
    await assert.rejects(loadRun('/tmp', '../../etc/passwd'), RangeError);
    await assert.rejects(loadRun('/tmp', '.hidden'), RangeError);
    await assert.rejects(loadRun('/tmp', 'a/b'), RangeError);
  });

  it('skips a run file over 32 MiB, naming its size, without reading it (a 205 MB dp 1024 run froze the window for minutes; s45 newcomer-ed N4, N10)', async () => {
    const dir = join(tempDir('attnscope-history-'), 'runs');
    const id = await saveRun(dir, run);
    // A sparse file one byte past 32 MiB (32 * 2^20 + 1 = 33,554,433 bytes): at the old 512 MiB cap it was read and parsed, and refused as no JSON.
    writeFileSync(join(dir, 'cli-big.json'), '');
    truncateSync(join(dir, 'cli-big.json'), 32 * 2 ** 20 + 1);
    const { runs, skipped } = await listRuns(dir);
    assert.deepEqual(runs.map((r) => r.id), [id]);
    assert.deepEqual(skipped, ['cli-big.json: 33,554,433 bytes, past the 32 MiB such a file is at most']);
  });

  it('skips a FIFO or a folder named like a run, saying what it is, without waiting on the FIFO (a readFile of it never returned; s43 review)', async () => {
    const dir = join(tempDir('attnscope-history-'), 'runs');
    const id = await saveRun(dir, run);
    // mkfifo(1): no writer ever opens it, so a plain read would never return and this test would time out.
    execFileSync('mkfifo', [join(dir, 'cli-fifo.json')]);
    mkdirSync(join(dir, 'cli-dir.json'));
    const { runs, skipped } = await listRuns(dir);
    assert.deepEqual(runs.map((r) => r.id), [id]);
    assert.deepEqual(skipped.sort(), ['cli-dir.json: a folder', 'cli-fifo.json: not a regular file (a FIFO)']);
  });

  it('lists a run the CLI saved under another name (attnscope simulate --json .attnscope/runs/cli-001.json), and skips a file named unlike any run id (s37 newcomer-ed 3)', async () => {
    // README: run history is `.attnscope/runs/*.json`; 40 such CLI runs were skipped as "not named as AttnScope names runs".
    const dir = join(tempDir('attnscope-history-'), 'runs');
    const id = await saveRun(dir, run);
    writeFileSync(join(dir, 'cli-001.json'), JSON.stringify({ ...run, createdAt: '2026-11-29T14:00:00.000Z' }));
    writeFileSync(join(dir, 'my run.json'), JSON.stringify(run));
    const { runs, skipped } = await listRuns(dir);
    assert.deepEqual(runs.map((r) => r.id), ['cli-001', id]);
    assert.deepEqual(skipped, ['my run.json: a name no run id takes (letters, digits, ".", "_" and "-", not first a "." or "-")']);
    assert.deepEqual(await loadRun(dir, 'cli-001'), { ...run, createdAt: '2026-11-29T14:00:00.000Z' });
    assert.equal((await findRun([dir], 'cli-001')).folder, dir);
  });

  it('lists a run the CLI wrote, named by its bare file, as the editor names runs (model · profile · mode), and a trace replay by its trace (s40 newcomer-ed F9)', async () => {
    // A workspace where `attnscope simulate qwen-tiny.attn.yaml --trace traces/mooncake.jsonl --json .attnscope/runs/trace-mooncake.json` ran:
    // the run's paths are relative to it, and its name is the profile's file.
    const ws = tempDir('attnscope-history-ws-');
    const dir = join(ws, '.attnscope', 'runs');
    mkdirSync(dir, { recursive: true });
    mkdirSync(join(ws, 'models', 'q'), { recursive: true });
    writeFileSync(join(ws, 'models', 'q', 'config.json'), '{"_name_or_path": "Qwen/Qwen2.5-7B"}');
    const trace = { path: 'traces/mooncake.jsonl', resolvedPath: join(ws, 'traces/mooncake.jsonl'), format: 'mooncake', timeUnit: 'timestamp, milliseconds', rowsRead: 2, dropped: {} };
    const load = { source: 'trace' as const, trace, timeScale: 1, offeredRequestsPerSec: 0.1, servedRequestsPerSec: 0.1, waitingAtLastArrival: 0, overloaded: false };
    const profile = { ...run.profile, modelPath: join('models', 'q', 'config.json'), sourcePath: 'qwen-tiny.attn.yaml' };
    const cli = { ...run, name: 'qwen-tiny.attn.yaml', kind: 'simulate' as const, cases: [], profile, pool: { ...run.pool!, load } };
    writeFileSync(join(dir, 'trace-mooncake.json'), JSON.stringify(cli));
    writeFileSync(join(dir, 'drawn.json'), JSON.stringify({ ...cli, createdAt: '2026-11-29T13:00:00.000Z', pool: { ...run.pool!, load: { ...load, source: 'workload', trace: undefined } } }));
    // An editor run's name is kept, with the trace added when it does not name it.
    writeFileSync(join(dir, 'editor.json'), JSON.stringify({ ...cli, createdAt: '2026-11-29T12:00:00.000Z', name: 'm · qwen-tiny.attn.yaml · simulation' }));
    const listed = (await listRuns(dir)).runs;
    const names = Object.fromEntries(listed.map((r) => [r.id, r.name]));
    // What a simulation counts, for History (s51: it read "cases 0"): the recorded pool's 400 requests (its profile's workload.requests, 400).
    assert.deepEqual(listed.map((r) => [r.cases, r.requests]), [[0, 400], [0, 400], [0, 400]]);
    // Each simulation's figure (s52 newcomer-ed 3: ten rows read alike): the recorded pool's TTFT p99, 0.114147 s.
    assert.deepEqual(listed.map((r) => r.figure), ['TTFT p99 114 ms', 'TTFT p99 114 ms', 'TTFT p99 114 ms']);
    // The model by its config's _name_or_path ("Qwen/Qwen2.5-7B" -> Qwen2.5-7B), read in the workspace the CLI ran in.
    assert.deepEqual(names, {
      'trace-mooncake': 'Qwen2.5-7B · qwen-tiny.attn.yaml · simulation · trace mooncake.jsonl',
      drawn: 'Qwen2.5-7B · qwen-tiny.attn.yaml · simulation',
      editor: 'm · qwen-tiny.attn.yaml · simulation · trace mooncake.jsonl',
    });
  });

  it('a multi-root workspace: lists the runs of every folder, named by folder, and finds each where it is saved', async () => {
    // s31 newcomer report item 1: runs are saved in their profile's workspace folder, but History,
    // Compare and Export read the first folder only (a second folder's runs unlisted, export ENOENT).
    const one = join(tempDir('attnscope-history-'), 'runs');
    const two = join(tempDir('attnscope-history-'), 'runs');
    const idOld = await saveRun(one, { ...run, createdAt: '2026-11-29T10:00:00.000Z' });
    const idNew = await saveRun(two, { ...run, name: 'qwen.attn.yaml' });
    writeFileSync(join(two, 'notes.json'), '{}');
    const places = [{ path: one, label: 'ws' }, { path: two, label: 'ws2' }, { path: one, label: 'ws3' }]; // ws3 shares ws's absolute folder: read once
    const { runs, skipped } = await listRunsIn(places);
    assert.deepEqual(runs.map((r) => [r.folder, r.id]), [['ws2', idNew], ['ws', idOld]], 'newest first across folders, each named by its folder');
    assert.deepEqual(skipped, ['ws2/notes.json: not an AttnScope run (schema 1 with a name and cases)']);
    // One folder (no label): entries as listRuns gives them, no folder named.
    assert.deepEqual(await listRunsIn([{ path: two }]), await listRuns(two));
    const found = await findRun([one, two], idNew);
    assert.equal(found.folder, two, 'found in the second folder, where it was saved (export proposes that folder)');
    assert.equal(found.run.name, 'qwen.attn.yaml');
    await assert.rejects(findRun([one], idNew), /no longer in the history folder/);
    await assert.rejects(findRun([one, two], '../../etc/passwd'), RangeError);
  });

  // s33 newcomer-ed: History was listed again after every save (and again by the folder's watcher),
  // reading and parsing every run: 20 simulations, 8.7 MB of JSON, on the path from save to screen.
  it('lists again reading only the files that changed since the last listing of the folder', async () => {
    // An editor run's name (extension/runName.ts runName), which History lists as it is.
    const run = { ...recorded, createdAt: '2026-11-29T13:40:12.345Z', name: 'llama-3.1-8b · run.attn.yaml · quick' };
    const dir = tempDir('attnscope-history-relist-');
    const id = await saveRun(dir, run);
    const file = join(dir, `${id}.json`);
    // A whole-second modification time, which utimes can set back exactly.
    const mtime = new Date('2026-12-04T12:00:00Z');
    utimesSync(file, mtime, mtime);
    assert.equal((await listRuns(dir)).runs[0]!.name, run.name);
    // The same file (inode, size, modification time) with other bytes: not read again. Without the
    // listing's memory the renamed run would show, so this proves the file was not re-parsed.
    const renamed = readFileSync(file, 'utf8').replace(JSON.stringify(run.name), JSON.stringify(run.name.replace(/./, 'X')));
    assert.equal(Buffer.byteLength(renamed), statSync(file).size, 'same size');
    writeFileSync(file, renamed);
    utimesSync(file, mtime, mtime);
    assert.equal((await listRuns(dir)).runs[0]!.name, run.name);
    // Saved again (saveRun renames a new file over: another inode): read again, as is a new run.
    await saveRun(dir, { ...run, name: 'second · quick' });
    const names = (await listRuns(dir)).runs.map((r) => r.name).sort();
    assert.deepEqual(names, ['second · quick', run.name].sort());
    // A file rewritten in place with a new modification time is read again too.
    utimesSync(file, new Date(mtime.getTime() + 5000), new Date(mtime.getTime() + 5000));
    assert.ok((await listRuns(dir)).runs.some((r) => r.name === run.name.replace(/./, 'X')));
  });

  // s46: a new window read every run again; 40 runs of a dp 8 simulation (4.2 MiB each) took 3.5 s to list (npm run bench:history).
  it('a new extension host lists from what the last one kept (persistListings), reading only files changed since; another build\'s list is not used', async () => {
    const run = { ...recorded, createdAt: '2026-11-29T13:40:12.345Z', name: 'llama-3.1-8b · run.attn.yaml · quick' };
    const dir = tempDir('attnscope-history-kept-');
    const store = join(tempDir('attnscope-storage-'), 'listed-files.json');
    const id = await saveRun(join(dir, 'runs'), run);
    const file = join(dir, 'runs', `${id}.json`);
    const mtime = new Date('2026-12-04T12:00:00Z');
    utimesSync(file, mtime, mtime);
    persistListings(store, 'build 1');
    assert.equal((await listRuns(join(dir, 'runs'))).runs[0]!.name, run.name);
    await listingsWritten();
    // The same file with other bytes (as in the test above), then a new host of the same build: it lists what the store kept.
    writeFileSync(file, readFileSync(file, 'utf8').replace(JSON.stringify(run.name), JSON.stringify(run.name.replace(/./, 'X'))));
    utimesSync(file, mtime, mtime);
    persistListings(store, 'build 1');
    assert.equal((await listRuns(join(dir, 'runs'))).runs[0]!.name, run.name);
    // A host of another build reads the file (its entries might differ).
    persistListings(store, 'build 2');
    assert.equal((await listRuns(join(dir, 'runs'))).runs[0]!.name, run.name.replace(/./, 'X'));
    await listingsWritten();
    assert.equal((JSON.parse(readFileSync(store, 'utf8')) as { build: string }).build, 'build 2');
  });

  it('an empty or missing folder lists nothing', async () => {
    assert.deepEqual(await listRuns(join(tmpdir(), 'attnscope-does-not-exist')), { runs: [], skipped: [] });
  });

  it('a partial run keeps the cases received and says why it ended', () => {
    const p = partialRun({ name: 'x.attn.yaml', kind: 'bench', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases: run.cases.slice(0, 1), status: 'failed', error: 'runner ended without a result (exit code 134)' });
    assert.equal(p.schema, 1);
    assert.equal(p.status, 'failed');
    assert.equal(p.cases.length, 1);
    assert.equal(p.error, 'runner ended without a result (exit code 134)');
    assert.equal(p.tool, 'attnscope 0.1.0');
    // s31 newcomer-ed 10: a cancelled simulation named this host's CPU (os.cpus(): 'AMD EPYC') where
    // the runner's runs name its CPUID brand ('Oxide Virtual Turin-like Processor'): the runner's machine when it said it.
    const runner = { ...run.environment, cpuModel: 'Oxide Virtual Turin-like Processor' };
    assert.equal(partialRun({ name: 's.attn.yaml', kind: 'simulate', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases: [], status: 'cancelled', environment: runner }).environment, runner);
  });

  it('a run cancelled before the runner said its machine names the CPU as the runner does (one source)', () => {
    // s34 newcomer-ed 6: 'AMD EPYC' (os.cpus(), /proc/cpuinfo) on a run cancelled before its first
    // case, 'Oxide Virtual Turin-like Processor' (the addon's CPUID brand) on the runner's own: one
    // machine split in two by the sweep's environment key (it hashes cpuModel).
    const p = partialRun({ name: 'x.attn.yaml', kind: 'bench', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases: [], status: 'cancelled' });
    assert.equal(p.environment.cpuModel, describeMachine().cpuModel);
    assert.equal(p.environment.cpuModel, cpus()[0]!.model.trim());
  });

  it('keeps in history every finished run, and a failed or cancelled one only with a kernel case or a pool', () => {
    const partial = (status: 'cancelled' | 'failed', cases: typeof run.cases) => partialRun({ name: 'p.attn.yaml', kind: 'bench', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases, status, error: 'runner ended without a result (exit code 1)' });
    // newcomerB: a runner killed (or without kernels to load) before its first case left a
    // failed run with no data in History, listed among the real ones.
    assert.equal(keptInHistory(partial('failed', [])), false);
    assert.equal(keptInHistory({ ...run, status: 'failed', cases: [], pool: undefined }), false, 'the runner\'s own failed run, with nothing in it');
    // Crashed after its first case: the case is a result (the e2e crash test relies on it).
    assert.equal(keptInHistory(partial('failed', run.cases.slice(0, 1))), true);
    assert.equal(keptInHistory({ ...run, status: 'failed', cases: [] }), true, 'a failed run with its pool simulation');
    // s27 newcomer-ed 14: Cancel right after start saved a "cancelled · 0" run with nothing to open.
    assert.equal(keptInHistory(partial('cancelled', [])), false);
    assert.equal(keptInHistory(partial('cancelled', run.cases.slice(0, 1))), true);
    assert.equal(keptInHistory({ ...run, status: 'cancelled', cases: [] }), true, 'a cancelled run with its pool simulation');
    assert.equal(keptInHistory(run), true);
  });
});

describe('an interrupted run in History', () => {
  // s50 newcomer-ed 1: History said "cancelled" for a run a window reload stopped, as for one the user cancelled.
  it('lists a run a reload stopped (its error INTERRUPTED) as interrupted, a cancelled one not', async () => {
    const dir = tempDir('attnscope-history-');
    const cut = partialRun({ name: 'p.attn.yaml', kind: 'bench', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases: run.cases.slice(0, 2), status: 'cancelled', error: 'interrupted (window reloaded or closed) after 2 case(s)' });
    const idI = saveRunSync(dir, cut);
    const idC = saveRunSync(dir, { ...cut, createdAt: '2026-11-29T10:00:00.000Z', error: 'cancelled' });
    const { runs } = await listRuns(dir);
    assert.equal(runs.find((r) => r.id === idI)?.interrupted, true);
    assert.equal(runs.find((r) => r.id === idC)?.interrupted, undefined);
  });
});

describe('kernel build in the run pickers', () => {
  // s27 newcomer-ed 11: History/Compare entries of a simulation said '· native addon · avx2 · 2 threads'.
  it('names the build of a run that timed kernels, and "no kernel timed" for one that timed none', () => {
    const env = { ...run.environment, nativeBuild: 'native' as const };
    assert.equal(kernelBuildText(env, run.cases), `native addon · ${env.simd} · ${env.threads} threads`);
    assert.equal(kernelBuildText(env, []), 'no kernel timed');
  });
});

describe('CSV export', () => {
  it('one header and one row per case, values as measured', () => {
    const all = runToCsv({ ...run, pool: undefined }).text.trimEnd().split('\n');
    // The header, the 12 rows saying what the run is of (table 'run'; no pool: no step-time rows), a row per case.
    assert.equal(all.length, 1 + 12 + run.cases.length);
    const lines = [all[0]!, ...all.filter((l) => l.startsWith('kernel,'))];
    const header = lines[0]!.split(',');
    const row = lines[1]!.split(',');
    const get = (name: string): string => row[header.indexOf(name)]!;
    assert.equal(get('kernel'), 'flash_fwd');
    assert.equal(get('seq_len_q'), '512');
    assert.equal(get('median_ns'), String(run.cases[0]!.medianNs));
    assert.equal(get('samples'), String(run.cases[0]!.samplesNs.length));
    assert.equal(get('kv_dtype'), '', 'prefill has no separate KV dtype');
    assert.equal(run.cases[1]!.kernel, 'paged_decode');
    assert.equal(lines[2]!.split(',')[header.indexOf('page_size')], '16');
    // The roof fraction_of_peak divides by, as the run names it.
    assert.equal(get('peak'), run.cases[0]!.ceiling);
    assert.equal(get('table'), 'kernel');
    assert.equal(get('source'), 'measured');
    // One GPU, all the heads: TP 1 (the fixture's shapes carry no tensorParallelSize).
    assert.equal(get('tensor_parallel_size'), '1');
    const tp2 = runToCsv({ ...run, pool: undefined, cases: [{ ...run.cases[0]!, shape: { ...run.cases[0]!.shape, tensorParallelSize: 2 } }] }).text.trimEnd().split('\n');
    assert.equal(tp2.find((l) => l.startsWith('kernel,'))!.split(',')[header.indexOf('tensor_parallel_size')], '2');
  });

  // s27 newcomer-ed 2: a simulation's CSV was the kernel header alone (261 bytes) and a
  // benchmark's lacked its pool simulation; the toast said "exported" either way.
  it('a simulation run: its pool and latency figures as rows, modelled, with units; no kernel columns', () => {
    const sim = { ...run, kind: 'simulate' as const, cases: [] };
    const { text, rows } = runToCsv(sim);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines[0], 'table,source,figure,statistic,value,unit');
    assert.equal(rows, lines.length - 1);
    const cell = (figure: string, statistic: string): string[] => {
      const r = lines.map((l) => l.split(',')).find((c) => c[2] === figure && c[3] === statistic);
      assert.ok(r, `${figure} ${statistic}`);
      return r;
    };
    // s31 newcomer-ed 5: rows above the figures say what the run is of (the CSV alone had only its
    // file name): the fixture's name, model (its config's folder, examples/llama-3.1-8b), profile,
    // the step-time model's GPU (no device.gpu: DEFAULT_GPU, H100 SXM, as its pool.latency.stepTime.gpu),
    // tensor_parallel_size 1, pipeline_parallel_size 1 (a run saved before it was read has none: 1),
    // and the machine (its environment: AMD EPYC, 2 cores, x64, avx2).
    assert.deepEqual(lines.slice(1, 17), [
      'run,profile,run,,run.attn.yaml,',
      'run,profile,model,,llama-3.1-8b,examples/llama-3.1-8b/config.json',
      'run,profile,profile,,run.attn.yaml,test/fixtures/run.attn.yaml',
      "run,profile,gpu,,H100 SXM,device.gpu not set: the default GPU's peaks drive the step-time model",
      'run,profile,tensor_parallel_size,,1,GPUs',
      'run,profile,pipeline_parallel_size,,1,stages (1 GPU in all)',
      // s39 newcomer-ed 4: what tells two runs apart beyond their file names. The fixture's KV cache
      // is 'auto', its dtype bf16; Llama-3.1-8B: 32 layers · 2 (K, V) · 8 KV heads · 128 · 2 B =
      // 131,072 B a token; a 16-token page 2,097,152 B; num_pages 2,048 · that = 4,294,967,296 B (4 GiB).
      'run,profile,kv_cache.dtype,,bf16,kv_cache.dtype auto: the model dtype',
      'run,profile,kv_cache.page_size,,16,tokens',
      'run,estimate,kv_bytes_per_token,,131072,"bytes a token, all layers, one GPU"',
      'run,estimate,page_bytes,,2097152,"bytes a page (block), one GPU"',
      'run,estimate,kv_budget_bytes,,4294967296,bytes a GPU (kv_cache.num_pages · page_bytes)',
      // The step-time model its latency rows are modelled on: the fixture's profile sets no step_time, so all three assumed (0.6, 0.8, 0 ms: runner/simulate/step-time.ts ASSUMED_STEP_TIME).
      'run,step-time model,step_time.gpu,,H100 SXM,the GPU whose peak FLOP/s and bandwidth it divides by',
      'run,step-time model,step_time.compute_efficiency,,0.6,"fraction of peak FLOP/s, assumed (profile step_time not set)"',
      'run,step-time model,step_time.memory_efficiency,,0.8,"fraction of peak bandwidth, assumed (profile step_time not set)"',
      'run,step-time model,step_time.overhead,,0,"s a step, assumed (profile step_time not set)"',
      'run,machine,machine,,"AMD EPYC (2 cores, x64, avx2)",where it ran',
    ]);
    const tp4 = runToCsv({ ...sim, profile: { ...sim.profile, device: { ...sim.profile.device, gpu: 'A100 80GB', tensorParallelSize: 4 } } }).text;
    assert.match(tp4, /^run,profile,gpu,,A100 80GB,device\.gpu: its peaks drive the step-time model$/m);
    assert.match(tp4, /^run,profile,tensor_parallel_size,,4,GPUs$/m);
    const pp2 = runToCsv({ ...sim, profile: { ...sim.profile, device: { ...sim.profile.device, tensorParallelSize: 4, pipelineParallelSize: 2 } } }).text;
    assert.match(pp2, /^run,profile,pipeline_parallel_size,,2,stages \(8 GPUs in all\)$/m);
    // Data parallelism: tp 4 × pp 2 a replica, 3 replicas: 24 GPUs in all.
    const dp3 = runToCsv({ ...sim, profile: { ...sim.profile, device: { ...sim.profile.device, tensorParallelSize: 4, pipelineParallelSize: 2, dataParallelSize: 3 } } }).text;
    assert.match(dp3, /^run,profile,pipeline_parallel_size,,2,stages \(8 GPUs a replica\)\nrun,profile,data_parallel_size,,3,replicas \(24 GPUs in all\)$/m);
    // A data-parallel simulation's running and waiting figures are per engine (s41 newcomer-ed F2): the unit says so.
    const dpRun = runToCsv({ ...sim, pool: { ...sim.pool!, dataParallel: { size: 2, replicas: [], dispatch: '' } } }).text;
    assert.match(dpRun, /^simulation,modelled,concurrency,mean,[\d.]+,sequences per engine$/m);
    assert.match(dpRun, /^simulation,modelled,waiting,peak,[\d.]+,requests per engine$/m);
    // The queueing delay is named so beside `waiting`, the number of requests waiting (was 'queue').
    assert.deepEqual(cell('queue_delay', 'p90').slice(4), [String(run.pool!.latency!.queue!.p90), 's']);
    assert.deepEqual(cell('waiting', 'mean').slice(5), ['requests']);
    assert.equal(lines.some((l) => l.split(',')[2] === 'queue'), false);
    // The fixture's latency: ttft p99 0.11414699534445467 s, tpot p50 0.006825730821407276 s.
    assert.deepEqual(cell('ttft', 'p99'), ['simulation', 'modelled', 'ttft', 'p99', '0.11414699534445467', 's']);
    assert.deepEqual(cell('tpot', 'p50'), ['simulation', 'modelled', 'tpot', 'p50', '0.006825730821407276', 's']);
    assert.equal(cell('e2e', 'max')[4], String(run.pool!.latency!.e2e!.max));
    assert.equal(cell('occupancy', 'peak')[4], String(run.pool!.summary.peakOccupancy));
    // s31 newcomer-ed 5: units as runner/simulate/simulate.ts computes them. internal fragmentation =
    // 1 − ∫T dt / ∫R dt and useful = ∫T dt / ∫R dt, R = reserved slots: one denominator, one spelling
    // (was 'allocated slots' / 'reserved KV memory'). External = ∫F dt / (arena slots · simulated
    // seconds): a fraction of all slots, as the CLI's "/ all slots" (was 'fraction of free memory').
    assert.equal(cell('internal_fragmentation', 'mean')[5], 'fraction of reserved slots');
    assert.equal(cell('useful_token_fraction', 'mean')[5], 'fraction of reserved slots');
    for (const b of run.pool!.baselines) {
      assert.equal(cell(`${b.name}.external_fragmentation`, 'mean')[5], 'fraction of all slots');
      assert.equal(cell(`${b.name}.internal_fragmentation`, 'mean')[5], 'fraction of reserved slots');
      assert.equal(cell(`${b.name}.useful_token_fraction`, 'mean')[5], 'fraction of reserved slots');
    }
    assert.equal(cell('num_pages', '')[4], String(run.pool!.numPages));
    // s31 newcomer: two rows named output_throughput, both tokens/s. Each names its rate, unit and span, as the run's JSON holds them.
    assert.deepEqual(cell('output_throughput_tokens_per_s', '').slice(4), [String(run.pool!.summary.throughputTokensPerSec), "tokens/s (completed requests' output tokens / the time from 0 s to the last request's end (vllm bench serve's benchmark duration))"]);
    assert.deepEqual(cell('latency.output_tokens_per_s', '').slice(4), [String(run.pool!.latency!.outputTokensPerSec), "tokens/s (completed requests' output tokens / the time from 0 s to the last request's end (vllm bench serve's benchmark duration))"]);
    assert.deepEqual(cell('latency.requests_per_s', '').slice(4), [String(run.pool!.latency!.requestsPerSec), "requests/s (completed requests / the time from 0 s to the last request's end (vllm bench serve's benchmark duration))"]);
    assert.equal(lines.filter((l) => /output_throughput/.test(l)).length, 1);
    assert.equal(cell('contiguous_max_model_len.external_fragmentation', 'mean')[4], String(run.pool!.baselines.find((b) => b.name === 'contiguous_max_model_len')!.externalFragmentation));
    // Goodput is written only with an SLO: the fixture has none, a run with one writes it.
    assert.equal(lines.some((l) => l.includes(',goodput_requests_per_s,')), false);
    const slo = runToCsv({ ...sim, pool: { ...sim.pool!, latency: { ...sim.pool!.latency!, slo: { ttftMs: 200 }, goodputRequestsPerSec: 3.5, sloAttainment: 0.875 } } }).text;
    assert.match(slo, /^simulation,modelled,goodput_requests_per_s,,3\.5,requests\/s \(requests meeting the SLO \/ the time from 0 s to the last request's end \(vllm bench serve's benchmark duration\)\)$/m);
    assert.match(slo, /^simulation,modelled,slo\.ttft,,0\.2,s$/m);
  });

  it('a benchmark with a pool: kernel rows and simulation rows in one table; a run with neither has no row', () => {
    const { text, rows } = runToCsv(run);
    const lines = text.trimEnd().split('\n');
    const header = lines[0]!.split(',');
    assert.equal(header.length, 2 + 28 + 4);
    assert.equal(lines.filter((l) => l.startsWith('kernel,measured,')).length, run.cases.length);
    const ttft = lines.find((l) => l.startsWith('simulation,') && l.includes(',ttft,p50,'))!.split(',');
    assert.equal(ttft.length, header.length);
    assert.equal(ttft[header.indexOf('kernel')], '');
    assert.equal(ttft[header.indexOf('value')], String(run.pool!.latency!.ttft!.p50));
    assert.ok(rows > run.cases.length);
    assert.deepEqual(runToCsv({ ...run, cases: [], pool: undefined }), { text: 'table,source\n', rows: 0 });
  });

  // The dashboard's Run button resolved a CLI run's relative profile path against the first
  // workspace folder: in a two-folder workspace, a run of the second folder's profile ran the first's.
  it("runs a CLI run's relative profile again from the run's own workspace folder, else the folder that holds it", () => {
    const a = tempDir('attnscope-rerun-a-');
    const b = tempDir('attnscope-rerun-b-');
    writeFileSync(join(a, 'p.attn.yaml'), 'model: ./config.json\n');
    writeFileSync(join(b, 'p.attn.yaml'), 'model: ./config.json\n');
    writeFileSync(join(b, 'only-b.attn.yaml'), 'model: ./config.json\n');
    // Both folders hold p.attn.yaml: the run's own folder (b, listed first by the dashboard) wins over the workspace's first.
    assert.equal(rerunSource('p.attn.yaml', [b, a], existsSync), join(b, 'p.attn.yaml'));
    // Only b holds it: b, whatever the order.
    assert.equal(rerunSource('only-b.attn.yaml', [a, b], existsSync), join(b, 'only-b.attn.yaml'));
    // None holds it: the first (the run's own), where the command then says it is missing.
    assert.equal(rerunSource('gone.attn.yaml', [b, a], existsSync), join(b, 'gone.attn.yaml'));
    // An absolute path (the editor records those) is run as it is.
    assert.equal(rerunSource(join(a, 'p.attn.yaml'), [b], existsSync), join(a, 'p.attn.yaml'));
  });
});

// s43: one newest-first comparator for History's runs, its sweeps and the sweep pickers (five had been written out).
describe('newestFirst', () => {
  it('orders by createdAt, latest first, and keeps equal times in their order', () => {
    // ISO 8601 UTC texts: 2026-12-05T18:00:00.000Z is later than 2026-12-05T09:30:00.000Z, by 8.5 h.
    const items = [
      { createdAt: '2026-12-05T09:30:00.000Z', n: 1 },
      { createdAt: '2026-12-05T18:00:00.000Z', n: 2 },
      { createdAt: '2025-01-31T23:59:59.999Z', n: 3 },
      { createdAt: '2026-12-05T09:30:00.000Z', n: 4 },
    ];
    assert.deepEqual([...items].sort(newestFirst).map((i) => i.n), [2, 1, 4, 3]);
    // Reversed arguments: oldest first (Compare's baseline).
    assert.deepEqual([...items].sort((a, b) => newestFirst(b, a)).map((i) => i.n), [3, 1, 4, 2]);
  });
});

// s52 newcomer-ed 3: History did not say which runs the CLI made and which the editor did.
describe('run origin in History', () => {
  it('lists where each run was made: the origin it records, "editor" for an older run with the editor\'s sourceSha256, else none', async () => {
    const dir = tempDir('attnscope-history-origin-');
    writeFileSync(join(dir, '20261206-232600-cli.json'), JSON.stringify({ ...recorded, createdAt: '2026-12-06T23:26:00.000Z', origin: 'cli' }));
    writeFileSync(join(dir, '20261206-232610-ed.json'), JSON.stringify({ ...recorded, createdAt: '2026-12-06T23:26:10.000Z', origin: 'editor' }));
    writeFileSync(join(dir, '20261206-232620-old-ed.json'), JSON.stringify({ ...recorded, createdAt: '2026-12-06T23:26:20.000Z', sourceSha256: 'ab'.repeat(32) }));
    writeFileSync(join(dir, '20261206-232630-old.json'), JSON.stringify({ ...recorded, createdAt: '2026-12-06T23:26:30.000Z' }));
    const { runs } = await listRuns(dir);
    assert.deepEqual(runs.map((r) => [r.id, r.origin]), [['20261206-232630-old', undefined], ['20261206-232620-old-ed', 'editor'], ['20261206-232610-ed', 'editor'], ['20261206-232600-cli', 'cli']]);
  });
});
