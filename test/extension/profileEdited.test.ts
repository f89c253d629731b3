/**
 * The dashboard's one check, for the Run tab and the Sweep tab alike, that a result's profile was
 * edited after the run started (s44 newcomer-ed F3: a simulation at arrival_rate 24 was shown as
 * the profile's after it was saved at 30): the text is compared by its SHA-256, not the file's
 * time or size, and the editor's open text counts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { profileEditedNote, profileState, textSha256 } from '../../extension/profileEdited';
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
