/**
 * `--set key=...` that does not parse (runner/sweep/spec.ts parseSetArg): the message says the
 * accepted form in the argument's terms, never the YAML reader's token names (s31 newcomer-cli 8:
 * `--set 'decode.context_lens=[512],[2048]'` printed "Unexpected scalar at node end at line 1, column 6:").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError, SetArgError } from '../../runner/errors';
import { parseSetArg } from '../../runner/sweep/spec';

/** The UsageError message parseSetArg throws for `arg`. */
function refused(arg: string): string {
  try {
    parseSetArg(arg, 0);
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    return e.message;
  }
  return assert.fail(`--set ${arg} was taken`);
}

const FORMS = "write key=v1,v2, or one [..] list when a value holds commas or is itself a list: --set 'decode.context_lens=[[512],[2048]]'";

test('lists side by side, the natural spelling of a list key\'s axis, get the same text inside one list', () => {
  // The suggestion is the argument's own text in [ ]: checked to parse as a list of lists below.
  assert.equal(refused('decode.context_lens=[512],[2048]'), "--set decode.context_lens=[512],[2048]: the values of a list key are lists inside one list: --set 'decode.context_lens=[[512],[2048]]'");
  assert.equal(refused('decode.context_lens=[512,1024],[2048]'), "--set decode.context_lens=[512,1024],[2048]: the values of a list key are lists inside one list: --set 'decode.context_lens=[[512,1024],[2048]]'");
  const axis = parseSetArg('decode.context_lens=[[512,1024],[2048]]', 0);
  assert.deepEqual(axis.values.map((v) => (v.type === 'array' ? (v.items ?? []).map((i) => (i.type === 'number' ? i.value : null)) : null)), [[512, 1024], [2048]]);
});

test('other text that does not parse gets both accepted forms, and no YAML token name or trailing colon', () => {
  for (const [arg, head] of [
    ['decode.context_lens=[512', 'the [..] list does not parse'],
    ['decode.context_lens=512,[2048', 'the values do not parse'],
  ] as const) {
    const m = refused(arg);
    assert.equal(m, `--set ${arg}: ${head}; ${FORMS}`);
    assert.doesNotMatch(m, /scalar|flow|node end|line 1, column|:$/);
  }
});

test('a --set value beyond the 64-bit float range is refused as --slo-ttft-ms 1e400 is, with the text typed, not "Infinity" (s43 newcomer43 L1)', () => {
  // Number('1e400') is Infinity: the value as typed and the flag's own wording (runner/args.ts beyondFloatRange).
  assert.equal(refused('slo.ttft_ms=100,1e400'), '--set slo.ttft_ms=100,1e400: 1e400 is beyond the 64-bit float range (±1.8e308)');
  assert.equal(refused('slo.ttft_ms=[100, -2e999]'), '--set slo.ttft_ms=[100, -2e999]: -2e999 is beyond the 64-bit float range (±1.8e308)');
  // YAML's own infinity is no overflow: left to the profile's "must be a finite number" check.
  assert.equal(parseSetArg('slo.ttft_ms=.inf', 0).values[0]!.value, Infinity);
  assert.equal(parseSetArg('slo.ttft_ms=1e300', 0).values[0]!.value, 1e300);
});

test('a --set of many values is echoed abbreviated in its error line (s46 newcomer L6: 399 values gave one line of about 3,000 characters)', () => {
  const values = Array.from({ length: 399 }, (_, i) => i + 1).join(',');
  const e = new SetArgError(`workload.seed=${values}`, null, 'the sweep has 159,201 points, more than 100,000: split it');
  assert.equal(e.message, '--set workload.seed=1, 2, 3, ..., 399 (399 values): the sweep has 159,201 points, more than 100,000: split it');
  // 8 values or fewer are echoed as given.
  assert.equal(new SetArgError('kv_cache.page_size=16,32', null, 'x').message, '--set kv_cache.page_size=16,32: x');
  assert.equal(e.arg, `workload.seed=${values}`);
});
