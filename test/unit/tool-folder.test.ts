/**
 * The .attnscope folder's .gitignore (s53 newcomer-ed F3: .attnscope/runs showed as untracked in
 * the user's git repository): made with the folder by core/makeFolder.ts (the editor's History,
 * its state) and by the CLI's sweep / submit (makeFoldersSync: mkdirSync's recursive make), never
 * written over an existing one. git itself says what it lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolder, makeFolderSync, makeFoldersSync } from '../../core/makeFolder';
import { tempDir } from '../fixtures/tmp';

/** `git status --porcelain --untracked-files=all` of a fresh repository at `dir`: what git would list. */
function gitInit(dir: string): () => string {
  execFileSync('git', ['init', '-q', dir]);
  return () => execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
}

test('makeFolder of .attnscope/runs in a git repository: a .gitignore of * in .attnscope, and git lists none of its files', async () => {
  const ws = tempDir('attnscope-toolfolder-');
  const status = gitInit(ws);
  await makeFolder(join(ws, '.attnscope', 'runs'));
  writeFileSync(join(ws, '.attnscope', 'runs', '20261207-031500-llama.json'), '{}\n');
  writeFileSync(join(ws, 'p.attn.yaml'), 'model: ./m/config.json\n');
  assert.match(readFileSync(join(ws, '.attnscope', '.gitignore'), 'utf8'), /^\*$/m);
  // Only the user's own file is untracked; without the .gitignore git lists `.attnscope/` too.
  assert.equal(status(), '?? p.attn.yaml\n');
  rmSync(join(ws, '.attnscope', '.gitignore'));
  assert.equal(status(), '?? .attnscope/runs/20261207-031500-llama.json\n?? p.attn.yaml\n');
});

test('makeFolderSync likewise; an existing .attnscope keeps its own .gitignore, or its lack of one', () => {
  const ws = tempDir('attnscope-toolfolder-');
  makeFolderSync(join(ws, 'a', '.attnscope', 'sweeps'));
  assert.equal(readFileSync(join(ws, 'a', '.attnscope', '.gitignore'), 'utf8').split('\n').at(-2), '*');
  mkdirSync(join(ws, 'b', '.attnscope'), { recursive: true });
  writeFileSync(join(ws, 'b', '.attnscope', '.gitignore'), 'runs/\n');
  makeFolderSync(join(ws, 'b', '.attnscope', 'runs'));
  assert.equal(readFileSync(join(ws, 'b', '.attnscope', '.gitignore'), 'utf8'), 'runs/\n');
  // The user deleted it: the folder is there, so it is not made again.
  mkdirSync(join(ws, 'c', '.attnscope'), { recursive: true });
  makeFolderSync(join(ws, 'c', '.attnscope', 'runs'));
  assert.equal(existsSync(join(ws, 'c', '.attnscope', '.gitignore')), false);
  // A folder of another name gets none.
  makeFolderSync(join(ws, 'd', 'runs'));
  assert.equal(existsSync(join(ws, 'd', '.gitignore')) || existsSync(join(ws, 'd', 'runs', '.gitignore')), false);
});

test("makeFoldersSync, mkdirSync's recursive make (the CLI's sweep folder): only a .attnscope it made", () => {
  const ws = tempDir('attnscope-toolfolder-');
  const made = join(ws, '.attnscope', 'sweeps', 'p-0123abcd');
  makeFoldersSync(made);
  assert.match(readFileSync(join(ws, '.attnscope', '.gitignore'), 'utf8'), /^\*$/m);
  rmSync(join(ws, '.attnscope', '.gitignore'));
  const again = join(ws, '.attnscope', 'sweeps', 'p-4567ef01');
  makeFoldersSync(again);
  assert.equal(existsSync(join(ws, '.attnscope', '.gitignore')), false);
});
