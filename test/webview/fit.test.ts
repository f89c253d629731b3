/**
 * Chart texts fitted to a narrow chart (webview/fit.ts), pure: a measure of 7 px per character
 * stands in for the canvas's (the dashboard's 13 px sans-serif is 6-7 px a character).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitTitle, shortenText, withoutAsides, wrapWords } from '../../webview/fit';

const measure = (text: string): number => 7 * text.length;

describe('fit', () => {
  it('wraps at spaces, and breaks a word wider than the line after its dots and underscores', () => {
    // 'time per call (ms, log)' is 23 characters, 161 px: on a 100 px axis, two lines.
    assert.deepEqual(wrapWords('time per call (ms, log)', 100, measure), ['time per call', '(ms, log)']);
    // The sweep's axis title on a 239 px chart's ~150 px axis: the key broken after its dot.
    assert.deepEqual(wrapWords('workload.max_num_batched_tokens (tokens, log)', 150, measure), ['workload.max_num_', 'batched_tokens', '(tokens, log)']);
    assert.deepEqual(wrapWords('fits', 100, measure), ['fits']);
  });

  it('shortens a legend item: its parenthesised parts left out first, then cut at a word with an ellipsis', () => {
    // The pool chart's legend item at 320 px (about 180 px of room): 38 characters, 266 px.
    assert.equal(withoutAsides('cached (evictable): to the dashed line'), 'cached: to the dashed line');
    assert.equal(shortenText('cached (evictable): to the dashed line', 190, measure), 'cached: to the dashed line');
    assert.equal(shortenText('cached (evictable): to the dashed line', 100, measure), 'cached: to…');
    assert.equal(shortenText('short', 100, measure), 'short');
    assert.equal(shortenText('abcdefghijklmnop', 50, measure), 'abcdef…');
  });

  it('shortens a title to its words outside parentheses, then wraps them', () => {
    assert.equal(fitTitle('Roofline (roofs: this machine’s measured peaks)', 200, measure), 'Roofline');
    assert.deepEqual(fitTitle('internal fragmentation vs workload.max_num_batched_tokens (modelled)', 239, measure), ['internal fragmentation vs', 'workload.max_num_batched_tokens']);
    assert.equal(fitTitle('Latency CDF (modelled)', 400, measure), 'Latency CDF (modelled)');
    // A Sweep tab small multiple's title keeps its unit and source, wrapped (at 7 px a character, 300 px holds 42): it read
    // "decode time per token vs kv_cache.page_size", the ms and "measured" dropped (s50 sweepchart).
    assert.deepEqual(fitTitle('decode time per token (ms, measured) vs kv_cache.page_size', 300, measure, true), ['decode time per token (ms, measured) vs', 'kv_cache.page_size']);
  });
});
