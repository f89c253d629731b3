/**
 * extension/folderWatch.ts FolderWatch on a temp workspace, with real file system events.
 *
 * s36 e2e36's finding: code-server's watcher (@parcel/watcher 2.5.1, inotify) missed runs the CLI
 * wrote into a history folder made together with its parent while the window was open
 * (`mkdir -p .attnscope/runs`): it watched runs/ late or never, and did not read what was already
 * in it. These steps do what the CLI does and wait for the calls that make History list again.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FolderWatch } from '../../extension/folderWatch';
import { tempDir } from '../fixtures/tmp';

/**
 * Counts onChange calls; `until(p, what)` resolves once `p()` holds, looked at after each call, and
 * rejects naming `what` when it does not within 10 s (FolderWatch's watchers do not keep the
 * process alive, persistent: false; this timer does, and a wrong implementation fails here).
 */
function recorder(): { onChange: () => void; count: () => number; until: (p: () => boolean, what: string) => Promise<void> } {
  let n = 0;
  const waiters: Array<() => void> = [];
  return {
    onChange: () => {
      n++;
      for (const w of waiters.splice(0)) w();
    },
    count: () => n,
    until: async (p, what) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no change reported within 10 s: ${what}`)), 10_000);
      });
      try {
        while (!p()) await Promise.race([new Promise<void>((r) => waiters.push(r)), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

describe('FolderWatch: folders made while watched', () => {
  it('watches a history folder made with its parent (mkdir -p), and reports the runs written there before and after', async () => {
    const ws = tempDir('attnscope-watch-');
    const runs = join(ws, '.attnscope', 'runs');
    const rec = recorder();
    const w = new FolderWatch([{ path: runs, depth: 0 }], rec.onChange);
    try {
      assert.deepEqual(w.watched, [ws], 'the nearest existing folder is watched until runs/ exists');
      // As the CLI saves: the folders and the file in one go, before any watch on runs/ can exist.
      mkdirSync(runs, { recursive: true });
      writeFileSync(join(runs, '20261204-120000-a.json'), '{}');
      await rec.until(() => w.watched.includes(runs), 'runs/ watched once made');
      // onChange comes after runs/ is watched, so the listing it starts reads the file written before.
      assert.deepEqual(w.watched, [runs]);
      assert.deepEqual(readdirSync(runs), ['20261204-120000-a.json']);
      // A later run in that folder is reported (parcel never watched runs/ in 7 of 20 tries).
      const before = rec.count();
      writeFileSync(join(runs, '20261204-120500-b.json'), '{}');
      await rec.until(() => rec.count() > before, 'a run written into runs/ after it was made');
    } finally {
      w.dispose();
    }
  });

  it('finds a history folder made after it was looked for and before the watch on its parent began', async () => {
    // The race the e2e two-folder step lost once in 6 runs (s36): the workspace folder's event for
    // .attnscope re-armed while `mkdir -p` was still making runs/; runs/ was missing when looked
    // for, made before the watch on .attnscope/ began, so no event ever told of it.
    const ws = tempDir('attnscope-watch-');
    const attnscope = join(ws, '.attnscope');
    const runs = join(attnscope, 'runs');
    mkdirSync(attnscope);
    const rec = recorder();
    const w = new FolderWatch([{ path: runs, depth: 0 }], rec.onChange, (path, listener) => {
      if (path === attnscope) mkdirSync(runs, { recursive: true }); // between the look for runs/ and this watch
      return watch(path, { persistent: false }, listener);
    });
    try {
      assert.deepEqual(w.watched, [runs]);
      const before = rec.count();
      writeFileSync(join(runs, '20261204-120500-b.json'), '{}');
      await rec.until(() => rec.count() > before, 'a run written into runs/');
    } finally {
      w.dispose();
    }
  });

  it('follows .attnscope deleted and made again: watches the workspace folder meanwhile, then the new runs/', async () => {
    const ws = tempDir('attnscope-watch-');
    const runs = join(ws, '.attnscope', 'runs');
    mkdirSync(runs, { recursive: true });
    const rec = recorder();
    const w = new FolderWatch([{ path: runs, depth: 0 }], rec.onChange);
    try {
      assert.deepEqual(w.watched, [runs]);
      rmSync(join(ws, '.attnscope'), { recursive: true });
      await rec.until(() => w.watched.length === 1 && w.watched[0] === ws, 'the workspace folder watched once .attnscope is gone');
      // Made again: a new inode at the same path, which the old (dead) watch would not see.
      mkdirSync(runs, { recursive: true });
      writeFileSync(join(runs, '20261204-121000-c.json'), '{}');
      await rec.until(() => w.watched.includes(runs), 'the new runs/ watched');
      const before = rec.count();
      writeFileSync(join(runs, '20261204-121500-d.json'), '{}');
      await rec.until(() => rec.count() > before, 'a run written into the new runs/');
    } finally {
      w.dispose();
    }
  });

  it('watches a sweeps folder one level down: a report written into a sweep folder made with its parents is reported', async () => {
    const ws = tempDir('attnscope-watch-');
    const sweeps = join(ws, '.attnscope', 'sweeps');
    const one = join(sweeps, 'page-size-d4cf7d4c');
    const rec = recorder();
    const w = new FolderWatch([{ path: sweeps, depth: 1 }], rec.onChange);
    try {
      mkdirSync(one, { recursive: true });
      await rec.until(() => w.watched.includes(one), 'the sweep folder watched once made');
      assert.deepEqual(w.watched.sort(), [sweeps, one].sort());
      // `attnscope sweep` writes its report when the sweep ends, into the folder made at its start.
      const before = rec.count();
      writeFileSync(join(one, 'sweep-report.json'), '{}');
      await rec.until(() => rec.count() > before, 'the sweep report written');
    } finally {
      w.dispose();
    }
  });
});
