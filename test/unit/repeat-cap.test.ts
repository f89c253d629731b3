/**
 * runner/errors.ts RepeatCap, the one counter of repeated problems behind a trace's bad rows
 * (TraceProblems: first 20, then 10 kinds counted) and a profile's problems (capRepeats: 3 of each
 * kind). Both forms' texts are tested where they are printed (traces.test.ts, test/cli/validate.test.ts);
 * here the limits together, which neither caller uses alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { numbersMasked, RepeatCap } from '../../runner/errors';

test('numbersMasked: every number, with its separators, is one #', () => {
  assert.equal(numbersMasked('hash_ids[3] at line 1,024: 0.5 GiB'), 'hash_ids[#] at line #: # GiB');
});

test('RepeatCap: the first `first` shown, then `perKind` of each kind, then a count per kind at its first not shown, up to `kinds`, then one count for the rest', () => {
  // Items are their kind's letter; limits first 2, perKind 1, kinds 2. Added: a a b a c b d c a d e
  //   #1 a, #2 a: the first 2, shown.      #3 b: b's 1st past them, shown.   #4 a: a's 1st past them, shown.
  //   #5 c: shown.                          #6 b: b's 2nd: b counted (kind 1 of 2), at #6.
  //   #7 d: shown.                          #8 c: c counted (kind 2 of 2), at #8.
  //   #9 a: a's 2nd: a 3rd kind, so the others' count, at #9.    #10 d, #11 e (shown: e's 1st): d to others.
  // Lines: a a b a c [b: 1] d [c: 1] [a: others 2] e
  const cap = new RepeatCap<string>((s) => s, { first: 2, perKind: 1, kinds: 2 });
  for (const s of 'aabacbdcade') cap.add(s);
  assert.equal(cap.added, 11);
  assert.deepEqual(cap.lines().map(({ item, rows, otherKinds }) => (rows === 0 ? item : `${item}:${rows}${otherKinds ? ' others' : ''}`)), ['a', 'a', 'b', 'a', 'c', 'b:1', 'd', 'c:1', 'a:2 others', 'e']);
  // A kind counted keeps counting: three more b's make its line 4, and they add no line.
  for (const s of 'bbb') cap.add(s);
  assert.equal(cap.lines().find((l) => l.item === 'b' && l.rows > 0)!.rows, 4);
  assert.equal(cap.lines().length, 10);
});
