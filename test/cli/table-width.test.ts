/**
 * The CLI's text tables fit 100 columns when piped (core/textTable.ts TABLE_WIDTH), COLUMNS or a terminal's width
 * when there is one (tableWidth, s51): a table wider than that
 * is printed as stacked parts, each repeating the columns that name a row, so every figure of the
 * full-width row is still printed (s50 newcomer MEDIUM-2: a 2-axis sweep's rows were 143 columns,
 * the vLLM-log comparison 120, simulate's allocation table 116). Through the built dist/runner.js.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const profile = join(root, 'examples', 'llama-3.1-8b.attn.yaml');

/** The CLI's stdout, piped (no terminal), with COLUMNS as given: unset unless `columns` says. */
function cli(args: string[], columns?: string): string {
  const env = { ...process.env };
  delete env.COLUMNS;
  if (columns !== undefined) env.COLUMNS = columns;
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 300_000, cwd: root, env });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const widest = (lines: string[]): number => Math.max(...lines.map((l) => l.length));

test('sweep: a 2-axis report (11 figure columns, 143 columns in one) is stacked parts within 100 columns, each row in each part with its axis values, every figure printed', () => {
  const out = cli(['sweep', profile, '--set', 'kv_cache.page_size=8,16', '--set', 'workload.max_num_seqs=64,256', '--out', join(tempDir('attnscope-width-'), 'sweep')]);
  const table = out.slice(out.indexOf('\npage_size  max_num_seqs') + 1, out.indexOf('\nbest:')).split('\n').filter((l) => l !== '');
  assert.ok(widest(table) <= 100, table.join('\n'));
  // The prose around it too (s51 brief: the title and the best line, ~500 characters in one, go through the one
  // prose wrapper, core/format.ts wrapLongLines): every line of stdout, in characters (μ and · are one each).
  assert.ok(out.split('\n').every((l) => [...l].length <= 100), out);
  assert.match(out, /^best: page_size=\d+ max_num_seqs=\d+ — .*\n {4}\S/m);
  const headers = table.filter((l) => l.startsWith('page_size  max_num_seqs'));
  assert.ok(headers.length >= 2, table.join('\n'));
  // Every column of the full-width form, each once.
  for (const h of ['internal frag', 'prefix hits', 'preemptions', 'pool pages', 'occupancy', 'tokens/s (sim)', 'rejected', 'p99 TTFT', 'p99 TPOT', 'keeps up']) {
    assert.equal(headers.filter((l) => l.includes(h)).length, 1, `${h}: ${headers.join(' | ')}`);
  }
  // page_size 8 halves page_size 16's 28,363 pages (README's figures: 56,726); max_num_seqs 64 does
  // not keep up (17.9 s p99 TTFT): figures from both sides of a split, each on a row naming its point.
  const rows = (p: string) => table.filter((l) => new RegExp(`^${p}`).test(l));
  assert.equal(rows('8 +64 ').length, headers.length);
  assert.ok(rows('8 +64 ').some((l) => / 56,726 /.test(l)), table.join('\n'));
  assert.ok(rows('8 +64 ').some((l) => / 17\.9 s .* no$/.test(l)), table.join('\n'));
});

test('simulate: the allocation table (116 columns in one) fits 100, every baseline row in each part', () => {
  const out = cli(['simulate', profile]).split('\n');
  const table = out.filter((l) => /^(allocation|paged \(|contiguous, )/.test(l));
  assert.ok(widest(table) <= 100, table.join('\n'));
  assert.ok(table.some((l) => l.includes('rejected/delayed')) && table.some((l) => l.includes('useful tokens')));
  // README's figures: max_model_len each rejects or delays 1,761 requests, 12.0% useful tokens.
  assert.ok(table.some((l) => /^contiguous, max_model_len each .* 1,761$/.test(l)), table.join('\n'));
  assert.ok(table.some((l) => /^contiguous, max_model_len each +12\.0% /.test(l)), table.join('\n'));
});

test('vllm-log: the comparison (120 columns in one) fits 100, every term in each part and its why under the last', () => {
  const out = cli(['vllm-log', join(root, 'examples', 'vllm-llama-3.1-8b.log'), '--profile', join(root, 'examples', 'vllm-llama-3.1-8b-a100-40gb.attn.yaml')]);
  const table = out.slice(out.indexOf('\nterm ') + 1, out.indexOf('\nsettings from the log')).split('\n').filter((l) => l !== '' && !l.startsWith('    '));
  assert.ok(widest(table) <= 100, table.join('\n'));
  // The why lines under the rows (the activation peak's is 118 characters in one) are wrapped at 100, continued 8 in.
  assert.ok(out.split('\n').every((l) => [...l].length <= 100), out);
  assert.match(out, /^ {4}modelled at max_num_batched_tokens .*\n {8}\S/m);
  // The log's 9,871 blocks against the estimate's 10,291 (+420, +4.3%), and the log's per-token bytes
  // with how they were derived: both sides of the split.
  assert.ok(table.some((l) => /^GPU blocks \(tokens \/ block size\) +9,871 \[5\]$/.test(l)), table.join('\n'));
  assert.ok(table.some((l) => /^GPU blocks \(tokens \/ block size\) .*10,291 +\+420 \(\+4\.3%\)$/.test(l)), table.join('\n'));
  assert.ok(table.some((l) => l.includes('≈ 131,100 B (KV cache memory / tokens) [4]')), table.join('\n'));
  // Its why line says how far the log's rounding leaves it: 0.005 GiB / 157,936 tokens = 34 B (s51 nc-cli 18).
  assert.match(out, /^ {4}±34 B a token: the log's KV cache memory is rounded to 0\.01 GiB; the same model/m);
  assert.equal(out.split('\n').filter((l) => l.startsWith('GPU blocks')).length, 2);
});

test('simulate: the allocation table follows COLUMNS (s51): 200 prints its 7 columns (116 wide) as one; 60 stacks 5 parts of at most 60; unset, piped: 100', () => {
  const table = (out: string) => out.split('\n').filter((l) => /^(allocation|paged \(|contiguous, )/.test(l));
  const headers = (t: string[]) => t.filter((l) => l.startsWith('allocation'));
  // 116 columns in one (s50's count): key 32 + 6 figure columns; at 200 one part, every header on its line.
  const wide = table(cli(['simulate', profile], '200'));
  assert.equal(headers(wide).length, 1, wide.join('\n'));
  assert.match(headers(wide)[0]!, /useful tokens +internal frag +external frag +mean running +peak running +rejected\/delayed$/);
  assert.ok(widest(wide) > 100 && widest(wide) <= 200, wide.join('\n'));
  // At 60: the key (32) and one figure column of 13-16 fit, two do not (32 + 2 + 13 + 2 + 13 = 62): mean and peak
  // running (12 each: 32 + 2 + 12 + 2 + 12 = 60) share a part; 5 parts, each line at most 60.
  const narrow = table(cli(['simulate', profile], '60'));
  assert.equal(headers(narrow).length, 5, narrow.join('\n'));
  assert.ok(widest(narrow) <= 60, narrow.join('\n'));
  assert.ok(narrow.some((l) => /^contiguous, max_model_len each +1,761$/.test(l)), narrow.join('\n'));
  // Piped with COLUMNS unset: 100, as every test above reads (2 parts).
  const piped = table(cli(['simulate', profile]));
  assert.equal(headers(piped).length, 2, piped.join('\n'));
  assert.ok(widest(piped) <= 100, piped.join('\n'));
});

test('prose follows the tables down, never up (s52): COLUMNS=60 wraps every simulate line to 60; COLUMNS=200 leaves prose at 100 while the allocation table takes 116', () => {
  const isTable = (l: string) => /^(allocation|paged \(|contiguous, )/.test(l);
  // 60: the Load line (about 250 characters in one) and the step-time terms wrap at 60, as the tables split at 60.
  const narrow = cli(['simulate', profile], '60').split('\n');
  assert.ok(narrow.every((l) => [...l].length <= 60), narrow.filter((l) => [...l].length > 60).join('\n'));
  assert.ok(narrow.some((l) => l.startsWith('Load: ')) && narrow.filter((l) => /^ {4}\S/.test(l)).length > 3);
  // 200: the table is one part of 116 columns; every other line within 100 (prose is read at a measure of 100).
  const wide = cli(['simulate', profile], '200').split('\n');
  assert.ok(wide.filter(isTable).some((l) => l.length > 100), wide.filter(isTable).join('\n'));
  const prose = wide.filter((l) => !isTable(l));
  assert.ok(prose.every((l) => [...l].length <= 100), prose.filter((l) => [...l].length > 100).join('\n'));
  assert.ok(prose.some((l) => [...l].length > 90), 'some prose line uses the width');
});
