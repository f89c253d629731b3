/**
 * "Open sweep results" finds the reports where `attnscope sweep` writes them: one level below
 * the default folder (.attnscope/sweeps/<name>-<hash>/sweep-report.json), or in the folder itself.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { interruptedProfileOf, interruptedReportOf, namedSkipped, resumableProfile, resumeArgs, sweepReportsIn } from '../../extension/sweepReports';
import { tempDir } from '../fixtures/tmp';

/** A minimal report: what the command reads (kind, name, createdAt, rows). */
function report(dir: string, name: string, createdAt: string, points: number, interrupted = false): void {
  mkdirSync(dir, { recursive: true });
  const rows = Array.from({ length: points }, (_, i) => ({ id: `p${i}` }));
  writeFileSync(join(dir, 'sweep-report.json'), JSON.stringify({ schema: 1, kind: 'attnscope-sweep-report', name, createdAt, rows, ...(interrupted ? { interrupted: true } : {}) }));
}

describe('sweepReportsIn', () => {
  it('finds the one sweep one level down (what `attnscope sweep` writes)', async () => {
    const sweeps = join(tempDir('attnscope-sweeps-'), '.attnscope', 'sweeps');
    report(join(sweeps, 'page-size-d4cf7d4c'), 'page-size.attn.yaml', '2026-12-02T10:00:00.000Z', 9);
    const found = (await sweepReportsIn(sweeps)).entries;
    assert.deepEqual(found.map((e) => [e.file, e.label, e.points]), [[join(sweeps, 'page-size-d4cf7d4c', 'sweep-report.json'), 'page-size.attn.yaml (page-size-d4cf7d4c)', 9]]);
  });

  it('lists several newest first, leaving out folders without a readable report, naming those with one that is none', async () => {
    const sweeps = tempDir('attnscope-sweeps-');
    report(join(sweeps, 'a-11111111'), 'a.attn.yaml', '2026-12-01T10:00:00.000Z', 3);
    report(join(sweeps, 'b-22222222'), 'b.attn.yaml', '2026-12-02T10:00:00.000Z', 4);
    mkdirSync(join(sweeps, 'half-33333333'));
    writeFileSync(join(sweeps, 'half-33333333', 'sweep-report.json'), '{"kind": "attnscope-sweep-re');
    mkdirSync(join(sweeps, 'empty'));
    const found = await sweepReportsIn(sweeps);
    assert.deepEqual(found.entries.map((e) => e.label), ['b.attn.yaml (b-22222222)', 'a.attn.yaml (a-11111111)']);
    // The half-written report is named; the empty folder (a sweep not merged yet) is not.
    assert.equal(found.skipped.length, 1);
    assert.match(found.skipped[0]!, new RegExp(`^${join(sweeps, 'half-33333333', 'sweep-report.json')}: not JSON \\(`));
  });

  it('names a report left out by its file as the workspace names it, its why kept whole (the toast and History say the same)', async () => {
    const sweeps = tempDir('attnscope-sweeps-');
    mkdirSync(join(sweeps, 'half-33333333'));
    writeFileSync(join(sweeps, 'half-33333333', 'sweep-report.json'), '{"kind": "attnscope-sweep-re');
    const { skipped } = await sweepReportsIn(sweeps);
    const named = namedSkipped(skipped, (file) => file.replace(`${sweeps}/`, '.attnscope/sweeps/'));
    assert.equal(named.length, 1);
    assert.match(named[0]!, /^\.attnscope\/sweeps\/half-33333333\/sweep-report\.json: not JSON \(/);
  });

  it('leaves out a FIFO named sweep-report.json unread (a readFile of it waited for ever, holding a libuv worker; s43 review)', async () => {
    const sweeps = tempDir('attnscope-sweeps-');
    report(join(sweeps, 'a-11111111'), 'a.attn.yaml', '2026-12-01T10:00:00.000Z', 3);
    mkdirSync(join(sweeps, 'fifo-22222222'));
    // mkfifo(1): no writer ever opens it, so a plain read would never return and this test would time out.
    execFileSync('mkfifo', [join(sweeps, 'fifo-22222222', 'sweep-report.json')]);
    const found = await sweepReportsIn(sweeps);
    assert.deepEqual(found.entries.map((e) => e.label), ['a.attn.yaml (a-11111111)']);
    assert.deepEqual(found.skipped, [`${join(sweeps, 'fifo-22222222', 'sweep-report.json')}: not a regular file (a FIFO)`]);
  });

  it('takes the folder\'s own report (`attnscope merge <folder>`) over its subfolders', async () => {
    const dir = tempDir('attnscope-sweeps-');
    report(dir, 'merged.attn.yaml', '2026-12-02T10:00:00.000Z', 2);
    report(join(dir, 'sub'), 'sub.attn.yaml', '2026-12-02T11:00:00.000Z', 1);
    assert.deepEqual((await sweepReportsIn(dir)).entries.map((e) => e.label), ['merged.attn.yaml (.)']);
  });

  it('a missing folder has none', async () => {
    assert.deepEqual(await sweepReportsIn(join(tmpdir(), 'attnscope-no-such-folder')), { entries: [], skipped: [] });
  });

  // s45 N9: a report over the editor's 32 MiB was left out of "Open sweep results" with nothing said.
  it('names a report over the 32 MiB the editor reads, with its size and the command that reads it, unread', async () => {
    const sweeps = tempDir('attnscope-sweeps-');
    report(join(sweeps, 'a-11111111'), 'a.attn.yaml', '2026-12-01T10:00:00.000Z', 3);
    mkdirSync(join(sweeps, 'big-22222222'));
    // A sparse file of 42,152,756 bytes: its size alone refuses it (nothing is read, so its bytes do not matter).
    writeFileSync(join(sweeps, 'big-22222222', 'sweep-report.json'), '');
    truncateSync(join(sweeps, 'big-22222222', 'sweep-report.json'), 42_152_756);
    const found = await sweepReportsIn(sweeps);
    assert.deepEqual(found.entries.map((e) => e.label), ['a.attn.yaml (a-11111111)']);
    // 42,152,756 B / 2^20 = 40.2000004 MiB, to 3 significant digits (core/format.ts formatBytes); the cap 2^25 B = 32 MiB.
    assert.deepEqual(found.skipped, [`${join(sweeps, 'big-22222222', 'sweep-report.json')}: 40.2 MiB, over the 32 MiB the editor reads; \`attnscope merge ${JSON.stringify(join(sweeps, 'big-22222222'))} --csv points.csv\` writes its rows as a table`]);
  });

  it('reads a report again when it changes, not while it is unchanged (same inode, size and time: listedFiles.ts)', async () => {
    const sweeps = tempDir('attnscope-sweeps-');
    const dir = join(sweeps, 'a-11111111');
    report(dir, 'a.attn.yaml', '2026-12-01T10:00:00.000Z', 3);
    // A whole second, which utimes can set back exactly.
    const file = join(dir, 'sweep-report.json');
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    assert.deepEqual((await sweepReportsIn(sweeps)).entries.map((e) => e.points), [3]);
    // Rewritten in place to the same length with its time put back: the stat is the same, so the list is what was read before.
    writeFileSync(file, readFileSync(file, 'utf8').replace('a.attn.yaml', 'b.attn.yaml'));
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    assert.deepEqual((await sweepReportsIn(sweeps)).entries.map((e) => e.name), ['a.attn.yaml']);
    // Another rewrite (4 rows): its size changed, so it is read.
    report(dir, 'a.attn.yaml', '2026-12-01T10:00:00.000Z', 4);
    assert.deepEqual((await sweepReportsIn(sweeps)).entries.map((e) => e.points), [4]);
  });

  // s41: the window after a reload that stopped a sweep shows the points it kept (Dashboard.showNoticeFromLastWindow).
  it('interruptedReportOf: the newest interrupted report of that profile in any folder; a finished one, another profile\'s or none: not', async () => {
    const [one, two] = [tempDir('attnscope-sweeps-'), tempDir('attnscope-sweeps-')];
    report(join(one, 'a-11111111'), 'a.attn.yaml', '2026-12-01T10:00:00.000Z', 1, true);
    report(join(two, 'a-22222222'), 'a.attn.yaml', '2026-12-02T10:00:00.000Z', 2, true);
    report(join(two, 'a-33333333'), 'a.attn.yaml', '2026-12-03T10:00:00.000Z', 3);
    report(join(one, 'b-44444444'), 'b.attn.yaml', '2026-12-04T10:00:00.000Z', 4, true);
    assert.equal((await interruptedReportOf([one, two], 'a.attn.yaml'))?.file, join(two, 'a-22222222', 'sweep-report.json'));
    assert.equal(await interruptedReportOf([one, two], 'c.attn.yaml'), null);
    assert.equal(await interruptedReportOf([], 'a.attn.yaml'), null);
  });
  it('interruptedProfileOf: the profile the newest interrupted report of that file records, only when it is that path (s43 newcomer-ed M4: the reloaded window\'s Resume ran a changed profile unchecked)', async () => {
    const dir = tempDir('attnscope-sweeps-');
    const path = join(dir, 'ps2.attn.yaml');
    const profile = { path, sha256: 'ab'.repeat(32), set: ['workload.arrival_rate=21'] };
    const write = (folder: string, createdAt: string, p: unknown) => {
      mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(join(dir, folder, 'sweep-report.json'), JSON.stringify({ schema: 1, kind: 'attnscope-sweep-report', name: 'ps2.attn.yaml', createdAt, rows: [], interrupted: true, ...(p ? { profile: p } : {}) }));
    };
    write('ps2-11111111', '2026-12-01T10:00:00.000Z', profile);
    assert.deepEqual(await interruptedProfileOf([dir], path), profile);
    // Another folder's ps2.attn.yaml, newer: not this file's sweep.
    write('ps2-22222222', '2026-12-02T10:00:00.000Z', { path: '/elsewhere/ps2.attn.yaml', sha256: 'cd'.repeat(32) });
    assert.equal(await interruptedProfileOf([dir], path), null);
    // An older runner's report, with no profile recorded: nothing to check against.
    write('ps2-33333333', '2026-12-03T10:00:00.000Z', null);
    assert.equal(await interruptedProfileOf([dir], path), null);
    assert.equal(await interruptedProfileOf([dir], join(dir, 'other.attn.yaml')), null);
  });
});


// s41 csv41 left 1: Resume on an interrupted report opened from History in another window did not know its profile.
describe('resumableProfile', () => {
  it('the profile an interrupted report names: the same text, changed text, or gone', async () => {
    const dir = tempDir('resume-profile-');
    const path = join(dir, 'grid.attn.yaml');
    const text = 'model: ./tiny/config.json\nsweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n';
    writeFileSync(path, text);
    // The runner's hash of the text it read (runner/sweep/spec.ts profileSha256), computed here by node:crypto.
    const sha256 = createHash('sha256').update(text).digest('hex');
    assert.deepEqual(await resumableProfile({ path, sha256 }), { state: 'same' });
    writeFileSync(path, text.replace('[16, 32]', '[16, 32, 64]'));
    assert.deepEqual(await resumableProfile({ path, sha256 }), { state: 'changed' });
    rmSync(path);
    assert.deepEqual(await resumableProfile({ path, sha256 }), { state: 'missing', why: 'no such file' });
  });

  it('a folder or a FIFO now at the path is refused unread, saying what it is (a FIFO with no writer was read for ever)', async () => {
    const dir = tempDir('resume-profile-');
    const path = join(dir, 'grid.attn.yaml');
    mkdirSync(path);
    assert.deepEqual(await resumableProfile({ path, sha256: '0'.repeat(64) }), { state: 'missing', why: 'a folder' });
    rmSync(path, { recursive: true });
    // mkfifo(1): no writer ever opens it, so a readFile would wait for ever and this test would time out.
    execFileSync('mkfifo', [path]);
    assert.deepEqual(await resumableProfile({ path, sha256: '0'.repeat(64) }), { state: 'missing', why: 'not a regular file (a FIFO)' });
  });
});

// s43: a sweep run with --set / --max-rate is another sweep than the file's; Resume passes them again.
describe('resumeArgs', () => {
  it('each --set as one --set=... argument, then --max-rate; nothing for a sweep of the file as written or a malformed set', () => {
    const profile = { path: '/p/grid.attn.yaml', sha256: 'ab'.repeat(32) };
    assert.deepEqual(resumeArgs(profile), []);
    // A value that starts with "-" stays in its argument: --set=key=-1 (a separate "-1" would read as a flag).
    assert.deepEqual(resumeArgs({ ...profile, set: ['workload.requests=50,400000', 'kv_cache.page_size=-1'], maxRate: true }), ['--set=workload.requests=50,400000', '--set=kv_cache.page_size=-1', '--max-rate']);
    assert.deepEqual(resumeArgs({ ...profile, set: 'workload.requests=50' as unknown as string[] }), []);
  });

  it('--out=<folder> last when the report\'s folder is given (a CLI sweep run with --out resumed into the default folder; s43 review)', () => {
    const profile = { path: '/p/grid.attn.yaml', sha256: 'ab'.repeat(32), maxRate: true as const };
    assert.deepEqual(resumeArgs(profile, '/runs/-odd folder'), ['--max-rate', '--out=/runs/-odd folder']);
  });
});
