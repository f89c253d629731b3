/**
 * core/fileText.ts's two readers, one implementation (regularTextSteps) driven by blocking fs and by
 * fs/promises: the same text or the same refusal for a regular file, an empty one, one past the cap,
 * a folder and a FIFO (never waited on), and the stat's error thrown / rejected for a missing path.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readRegularText, readRegularTextAsync } from '../../core/fileText';
import { tempDir } from '../fixtures/tmp';

test('readRegularText and readRegularTextAsync give the same text or refusal', async () => {
  const dir = tempDir('attnscope-filetext-');
  const text = join(dir, 'a.txt');
  // 3 characters, 4 bytes in UTF-8 ("é" is 2): read whole under a cap of 4, refused at 3.
  writeFileSync(text, 'aé\n');
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '');
  const folder = join(dir, 'folder');
  mkdirSync(folder);
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const cases: Array<[string, number, unknown]> = [
    [text, 4, 'aé\n'],
    [empty, 4, ''],
    [text, 3, { why: '4 bytes, past the 3 B such a file is at most', kind: 'size', bytes: 4 }],
    [folder, 4, { why: 'a folder', kind: 'irregular' }],
    [fifo, 4, { why: 'not a regular file (a FIFO)', kind: 'irregular' }],
  ];
  for (const [path, max, want] of cases) {
    assert.deepEqual(readRegularText(path, max), want, path);
    assert.deepEqual(await readRegularTextAsync(path, max), want, path);
  }
  const missing = join(dir, 'missing');
  assert.throws(() => readRegularText(missing, 4), { code: 'ENOENT' });
  await assert.rejects(readRegularTextAsync(missing, 4), { code: 'ENOENT' });
});
