/** History's Delete of a saved run (extension/deleteRun.ts): asked first, to the trash, and where there is none, asked again. */
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deleteRunFile, type DeleteRunUi } from '../../extension/deleteRun';
import { findRunFolder, runFile } from '../../extension/history';
import { tempDir } from '../fixtures/tmp';

/** VS Code 1.100.3's file service where the file system has no trash (code-server, a remote window): vs/platform/files/common/fileService.ts. */
const NO_TRASH = (file: string): Error => new Error(`Unable to delete file '${file}' via trash because provider does not support it.`);

/**
 * A UI whose dialogs answer `answers` in turn (true: the action button), each question recorded; `trash`: what
 * a move to the trash does (removes the file, or throws); a permanent delete removes the file.
 */
function fakeUi(answers: boolean[], trash: (file: string) => void): DeleteRunUi & { asked: Array<{ message: string; detail: string; action: string }>; removed: Array<[string, boolean]> } {
  const asked: Array<{ message: string; detail: string; action: string }> = [];
  const removed: Array<[string, boolean]> = [];
  return {
    asked,
    removed,
    confirm: async (message, detail, action) => {
      asked.push({ message, detail, action });
      return answers.shift() ?? false;
    },
    remove: async (file, useTrash) => {
      removed.push([file, useTrash]);
      if (useTrash) trash(file);
      else rmSync(file);
    },
  };
}

/** A saved run's file in a fresh history folder. */
function savedRun(): string {
  const folder = tempDir('attnscope-delete-');
  const file = runFile(folder, '20261206-142640-llama');
  writeFileSync(file, '{}');
  return file;
}

describe('deleting a saved run (deleteRunFile)', () => {
  it('asks first, naming the run, its time and its file; No keeps the file and removes nothing', async () => {
    const file = savedRun();
    const ui = fakeUi([false], (f) => rmSync(f));
    assert.equal(await deleteRunFile(file, 'llama-3.1-8b.attn.yaml · simulation', '2026-12-06T14:26:40.000Z', ui), null);
    assert.equal(ui.asked.length, 1);
    assert.match(ui.asked[0]!.message, /^Delete the run llama-3\.1-8b\.attn\.yaml · simulation of .*2026.*\?$/);
    assert.equal(ui.asked[0]!.detail, 'Its file 20261206-142640-llama.json goes to the trash, from where it can be restored; History and the Compare pickers drop it.');
    assert.equal(ui.asked[0]!.action, 'Move to Trash');
    assert.deepEqual(ui.removed, []);
    assert.ok(existsSync(file));
  });

  it('moves the file to the trash once confirmed, and asks nothing more', async () => {
    const file = savedRun();
    const ui = fakeUi([true], (f) => rmSync(f));
    assert.equal(await deleteRunFile(file, 'a.attn.yaml', '2026-12-06T14:26:40.000Z', ui), 'trash');
    assert.deepEqual(ui.removed, [[file, true]]);
    assert.equal(ui.asked.length, 1);
    assert.ok(!existsSync(file));
  });

  it('where there is no trash (code-server): says so with the editor\'s error and deletes for good only when told to', async () => {
    const file = savedRun();
    const kept = fakeUi([true, false], (f) => {
      throw NO_TRASH(f);
    });
    assert.equal(await deleteRunFile(file, 'a.attn.yaml', '2026-12-06T14:26:40.000Z', kept), null);
    assert.deepEqual(kept.removed, [[file, true]]);
    assert.equal(kept.asked[1]!.message, 'The trash is not available here: delete the run a.attn.yaml permanently?');
    assert.equal(kept.asked[1]!.detail, `Moving ${file} to the trash failed (Unable to delete file '${file}' via trash because provider does not support it.). code-server and remote windows have no trash. Deleted permanently, it cannot be restored.`);
    assert.equal(kept.asked[1]!.action, 'Delete Permanently');
    assert.ok(existsSync(file), 'kept: the user said no to deleting it for good');

    const gone = fakeUi([true, true], (f) => {
      throw NO_TRASH(f);
    });
    assert.equal(await deleteRunFile(file, 'a.attn.yaml', '2026-12-06T14:26:40.000Z', gone), 'deleted');
    assert.deepEqual(gone.removed, [[file, true], [file, false]]);
    assert.ok(!existsSync(file));
  });

  it('a trash that moved the file and then failed asks nothing more: the run went to the trash', async () => {
    const file = savedRun();
    const ui = fakeUi([true], (f) => {
      rmSync(f);
      throw new Error('moved, then the reply was lost');
    });
    assert.equal(await deleteRunFile(file, 'a.attn.yaml', '2026-12-06T14:26:40.000Z', ui), 'trash');
    assert.equal(ui.asked.length, 1);
  });

  it('finds the folder that holds a run (the first of several), refuses an id that climbs out, names the folders when none holds it', async () => {
    const file = savedRun();
    const folder = join(file, '..');
    const other = tempDir('attnscope-delete-');
    assert.equal(await findRunFolder([other, folder], '20261206-142640-llama'), folder);
    await assert.rejects(findRunFolder([folder], '../20261206-142640-llama'), RangeError);
    await assert.rejects(findRunFolder([other], '20261206-142640-llama'), { message: `run 20261206-142640-llama is no longer in the history folder (${other})` });
  });
});
