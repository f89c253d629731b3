/**
 * The inlay hints VS Code does not draw in a file it opens as large, said as diagnostics
 * (extension/hiddenHints.ts; s38 newcomer-ed 2: an 11 MB config.json of 400,037 lines showed none).
 * The thresholds are VS Code's (code-server 4.100.3's workbench: TextModel `20*1024*1024`
 * characters and `300*1e3` lines, a file large when it has more: `f>a||u>b`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hiddenHintNotes, hintsHiddenWhy } from '../../extension/hiddenHints';

describe('hints VS Code hides in a large file', () => {
  it('past 300,000 lines or 20 MiB, with editor.largeFileOptimizations on', () => {
    // The newcomer's two configs: Llama-3.1-8B with 200,000 labels (400,037 lines, 11,156,425 bytes of ASCII) and 60,000 (120,037 lines).
    assert.equal(
      hintsHiddenWhy(400_037, 11_156_425, true),
      'VS Code shows no inlay hints in a file of more than 300,000 lines (this one has 400,037; setting editor.largeFileOptimizations, then reopen the file)',
    );
    assert.equal(hintsHiddenWhy(120_037, 3_196_425, true), null);
    assert.equal(hintsHiddenWhy(400_037, 11_156_425, false), null);
    assert.equal(hintsHiddenWhy(300_000, 1_000, true), null);
    assert.match(hintsHiddenWhy(300_001, 1_000, true)!, /more than 300,000 lines/);
    assert.equal(hintsHiddenWhy(10, 20 * 1024 * 1024, true), null);
    assert.match(hintsHiddenWhy(10, 20 * 1024 * 1024 + 1, true)!, /more than 20 MiB \(this one has 20,971,521 characters/);
  });

  it('each hint becomes a note on its key, from the line\'s first character to the hint', () => {
    const lines = ['{', '  "hidden_size": 4096,', '  "num_key_value_heads": 8,', ''];
    // The server's hint for num_key_value_heads sits at the end of its line (character 27).
    const notes = hiddenHintNotes([{ line: 2, character: 27, label: '128 KiB KV/token' }, { line: 0, character: 0, label: 'x' }], 'why', (n) => lines[n]!);
    assert.deepEqual(notes, [
      { line: 2, from: 2, to: 27, message: '128 KiB KV/token — the inlay hint here, not shown: why' },
      { line: 0, from: 0, to: 1, message: 'x — the inlay hint here, not shown: why' },
    ]);
  });
});
