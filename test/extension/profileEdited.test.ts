/**
 * The dashboard's one check, for the Run tab and the Sweep tab alike, that a result's profile was
 * edited after the run started (s44 newcomer-ed F3: a simulation at arrival_rate 24 was shown as
 * the profile's after it was saved at 30): the text is compared by its SHA-256, not the file's
 * time or size, and the editor's open text counts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it, mock } from 'node:test';
import { LiveEditedNotes, profileEditedNote, profileState, runEditedNote, textSha256, type EditedNotes } from '../../extension/profileEdited';
import type { RunResult } from '../../core/protocol/run';
import { tempDir } from '../fixtures/tmp';

const AT_24 = 'model: ./config.json\nworkload:\n  requests: 2000\n  arrival_rate: 24\n';

describe('profileEditedNote', () => {
  it('says nothing while the text is the one run, also after a save of the same text that moves the file\'s time', () => {
    const path = join(tempDir('attnscope-edited-'), 'llama.attn.yaml');
    writeFileSync(path, AT_24);
    // The hash the runner records (runner/sweep/spec.ts) and the editor keeps, worked out here by node:crypto.
    const sha256 = createHash('sha256').update(AT_24, 'utf8').digest('hex');
    assert.equal(textSha256(AT_24), sha256);
    utimesSync(path, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000)); // a save of the same text: a time check would call it edited
    assert.equal(profileEditedNote({ path, sha256 }, 'simulation'), null);
  });

  it('names the edit of an equal-length value (arrival_rate 24 -> 30: a size check misses it), for a simulation and a sweep', () => {
    const path = join(tempDir('attnscope-edited-'), 'llama.attn.yaml');
    writeFileSync(path, AT_24);
    const start = { path, sha256: textSha256(AT_24) };
    writeFileSync(path, AT_24.replace('arrival_rate: 24', 'arrival_rate: 30'));
    assert.equal(profileEditedNote(start, 'simulation'), 'profile edited since this simulation started: the figures below are of the earlier text of llama.attn.yaml; run the simulation again for the file as it is now');
    assert.equal(profileEditedNote(start, 'sweep'), 'profile edited since this sweep started: the figures below are of the earlier text of llama.attn.yaml; run the sweep again for the file as it is now');
  });

  it('reads the editor\'s open text first: a run of unsaved text is not edited while that text stays, though the file differs; an unsaved edit of it is', () => {
    const path = join(tempDir('attnscope-edited-'), 'llama.attn.yaml');
    writeFileSync(path, AT_24);
    const unsaved = AT_24.replace('requests: 2000', 'requests: 500');
    const start = { path, sha256: textSha256(unsaved) };
    assert.equal(profileEditedNote(start, 'benchmark', (p) => (p === path ? unsaved : undefined)), null);
    assert.match(profileEditedNote(start, 'benchmark', (p) => (p === path ? `${unsaved}# note\n` : undefined)) ?? '', /^profile edited since this benchmark started/);
    // Closed, the file on disk is what a run would read: not the text run.
    assert.match(profileEditedNote(start, 'benchmark') ?? '', /earlier text of llama\.attn\.yaml/);
  });

  it('says nothing with no start recorded (a CLI run, a merged report) or a profile no longer there; a folder there is missing, unread', () => {
    const dir = tempDir('attnscope-edited-');
    assert.equal(profileEditedNote(undefined, 'sweep'), null);
    assert.equal(profileEditedNote({ path: join(dir, 'x.attn.yaml') }, 'simulation'), null);
    assert.equal(profileEditedNote({ path: join(dir, 'gone.attn.yaml'), sha256: textSha256(AT_24) }, 'simulation'), null);
    mkdirSync(join(dir, 'dir.attn.yaml'));
    assert.deepEqual(profileState({ path: join(dir, 'dir.attn.yaml'), sha256: textSha256(AT_24) }), { state: 'missing', why: 'a folder' });
  });
});


// s45 left 3: the note was worked out only when a result was sent; an edit after it showed added none.
describe('LiveEditedNotes', () => {
  it('sends the note once the typing in the shown run\'s profile pauses, and takes it back when the text is the run\'s again; other files do nothing', () => {
    const path = join(tempDir('attnscope-edited-'), 'llama.attn.yaml');
    writeFileSync(path, AT_24);
    const start = { path, sha256: textSha256(AT_24) };
    const createdAt = '2026-12-06T04:00:00.000Z';
    const notes = (): EditedNotes => ({ current: { createdAt, note: profileEditedNote(start, 'simulation') } });
    const sent: EditedNotes[] = [];
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const live = new LiveEditedNotes(() => [path], notes, (n) => sent.push(n), 300);
      live.sent(notes()); // the run shown, with no note: its profile reads as it ran
      // Typing "30" over "24", a key every 100 ms, then saved: one check, 300 ms after the last.
      for (const text of ['arrival_rate: 2', 'arrival_rate: 3', 'arrival_rate: 30']) {
        writeFileSync(path, AT_24.replace('arrival_rate: 24', text));
        live.changed(path);
        mock.timers.tick(100);
      }
      live.changed(join(dirname(path), 'other.attn.yaml'));
      mock.timers.tick(199);
      assert.deepEqual(sent, [], 'not before 300 ms without a change');
      mock.timers.tick(1);
      assert.deepEqual(sent, [{ current: { createdAt, note: 'profile edited since this simulation started: the figures below are of the earlier text of llama.attn.yaml; run the simulation again for the file as it is now' } }]);
      // A save of the same text: the notes are the same, nothing sent.
      live.changed(path);
      mock.timers.tick(300);
      assert.equal(sent.length, 1);
      // Undone to the text run: the note goes.
      writeFileSync(path, AT_24);
      live.changed(path);
      mock.timers.tick(300);
      assert.deepEqual(sent.at(-1), { current: { createdAt, note: null } });
      // A file no result shown depends on: never checked.
      live.changed(join(dirname(path), 'other.attn.yaml'));
      mock.timers.tick(1000);
      assert.equal(sent.length, 2);
    } finally {
      mock.timers.reset();
    }
  });
});

// s45 left 3: an edit of the config.json a profile names (model: ./config.json) changes the run too (num_key_value_heads: the KV per token).
describe('runEditedNote', () => {
  it('names the model config edited after the run started, the profile first when both were', () => {
    const dir = tempDir('attnscope-edited-');
    const [profile, config] = [join(dir, 'llama.attn.yaml'), join(dir, 'config.json')];
    const CONFIG = '{"num_key_value_heads": 8}\n';
    writeFileSync(profile, AT_24);
    writeFileSync(config, CONFIG);
    const run = { kind: 'simulate', profile: { sourcePath: profile, modelPath: config }, sourceSha256: textSha256(AT_24), modelSha256: textSha256(CONFIG) } as unknown as RunResult;
    assert.equal(runEditedNote(run), null);
    writeFileSync(config, CONFIG.replace('8', '4'));
    assert.equal(runEditedNote(run), 'model config edited since this simulation started: the figures below are of the earlier text of config.json; run the simulation again for the file as it is now');
    // The editor's open text of it counts, as the profile's does.
    assert.equal(runEditedNote(run, (p) => (p === config ? CONFIG : undefined)), null);
    writeFileSync(profile, AT_24.replace('24', '30'));
    assert.match(runEditedNote(run)!, /^profile edited since this simulation started: .* llama\.attn\.yaml;/);
    // A run that recorded no config hash (a CLI run, one saved before s46): the profile's alone.
    writeFileSync(profile, AT_24);
    assert.equal(runEditedNote({ ...run, modelSha256: undefined }), null);
  });
});
