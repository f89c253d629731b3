import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_TABLE_WIDTH, PROSE_WIDTH, proseWidth, renderTable, TABLE_WIDTH, tableWidth, terminalText, utf8Locale } from '../../core/textTable';

describe('renderTable', () => {
  it('prints a narrow table as one, right-aligning figures', () => {
    assert.equal(renderTable(['k', 'value'], [['a', '1'], ['bb', '22']], [false, true]), 'k   value\n--  -----\na       1\nbb     22');
  });

  it('stacks a table past the width into parts that repeat the key columns, every cell kept, notes under the last part', () => {
    // 12 columns of 10 characters: key 10 + 11 × (2 + 10) = 142 columns in one; at 50 columns a part holds
    // the key and 3 others (10 + 3 × 12 = 46; a 4th would make 58), so 4 parts of 3, 3, 3 and 2.
    const header = Array.from({ length: 12 }, (_, i) => `col${i}`.padEnd(10, '_'));
    const rows = [Array.from({ length: 12 }, (_, i) => `r0c${i}`.padStart(10, '.')), Array.from({ length: 12 }, (_, i) => `r1c${i}`.padStart(10, '.'))];
    const text = renderTable(header, rows, header.map(() => true), { width: 50, rule: false, notes: ['  why 0', undefined] });
    const parts = text.split('\n\n');
    assert.equal(parts.length, 4);
    for (const line of text.split('\n')) assert.ok(line.length <= 50, line);
    for (const r of rows) for (const cell of r) assert.ok(text.includes(cell), cell);
    for (const p of parts) assert.match(p, /^col0_+ /);
    assert.equal(text.split('\n').filter((l) => l === '  why 0').length, 1);
    assert.match(parts[3]!, /r0c11\n {2}why 0\n\.+r1c0/);
    assert.equal(TABLE_WIDTH, 100);
  });
});

describe('tableWidth: the one place that decides how wide the CLI\'s tables print', () => {
  it('a terminal wider than 100 gives its width; piped output without COLUMNS 100; COLUMNS wins, piped or not; never under 40', () => {
    assert.equal(tableWidth({ env: {}, stdout: { isTTY: true, columns: 160 } }), 160);
    assert.equal(tableWidth({ env: {}, stdout: { isTTY: false, columns: 160 } }), TABLE_WIDTH);
    assert.equal(tableWidth({ env: {}, stdout: {} }), 100);
    assert.equal(tableWidth({ env: { COLUMNS: '60' }, stdout: {} }), 60);
    assert.equal(tableWidth({ env: { COLUMNS: '60' }, stdout: { isTTY: true, columns: 160 } }), 60);
    assert.equal(tableWidth({ env: { COLUMNS: 'wide' }, stdout: {} }), 100);
    assert.equal(tableWidth({ env: { COLUMNS: '10' }, stdout: {} }), MIN_TABLE_WIDTH);
    assert.equal(MIN_TABLE_WIDTH, 40);
  });

  it('renderTable without a width follows it: the 142-column table of 12 columns is one part at 160, 4 parts at COLUMNS 50', () => {
    const header = Array.from({ length: 12 }, (_, i) => `col${i}`.padEnd(10, '_'));
    const rows = [Array.from({ length: 12 }, (_, i) => `r0c${i}`.padStart(10, '.'))];
    const saved = process.env.COLUMNS;
    try {
      process.env.COLUMNS = '160';
      assert.equal(renderTable(header, rows, header.map(() => true), { rule: false }).split('\n\n').length, 1);
      process.env.COLUMNS = '50';
      assert.equal(renderTable(header, rows, header.map(() => true), { rule: false }).split('\n\n').length, 4);
    } finally {
      if (saved === undefined) delete process.env.COLUMNS;
      else process.env.COLUMNS = saved;
    }
  });
});

describe('proseWidth: prose at min(the tables\' width, 100) (s52)', () => {
  it('a 200-column terminal widens the tables only; COLUMNS=60 narrows both; piped, 100', () => {
    assert.equal(PROSE_WIDTH, 100);
    assert.equal(proseWidth({ env: {}, stdout: { isTTY: true, columns: 200 } }), 100);
    assert.equal(tableWidth({ env: {}, stdout: { isTTY: true, columns: 200 } }), 200);
    assert.equal(proseWidth({ env: { COLUMNS: '60' } }), 60);
    assert.equal(proseWidth({ env: {}, stdout: { isTTY: false } }), 100);
    // A caller given the tables' width: the same rule.
    assert.equal(proseWidth(72), 72);
    assert.equal(proseWidth(160), 100);
  });
});

describe('utf8Locale and terminalText: ASCII where the locale takes no UTF-8 (s52)', () => {
  it('POSIX precedence: LC_ALL, else LC_CTYPE, else LANG, the first set and non-empty; none set is UTF-8', () => {
    assert.equal(utf8Locale({}), true);
    assert.equal(utf8Locale({ LANG: 'C' }), false);
    assert.equal(utf8Locale({ LANG: 'POSIX' }), false);
    assert.equal(utf8Locale({ LANG: 'en_US.UTF-8' }), true);
    assert.equal(utf8Locale({ LANG: 'C.utf8' }), true);
    assert.equal(utf8Locale({ LC_ALL: 'C', LANG: 'en_US.UTF-8' }), false);
    assert.equal(utf8Locale({ LC_CTYPE: 'en_US.UTF-8', LANG: 'C' }), true);
    assert.equal(utf8Locale({ LC_ALL: '', LC_CTYPE: 'de_DE.ISO-8859-1', LANG: 'en_US.UTF-8' }), false);
  });

  it('maps each symbol of the CLI\'s text to its ASCII, one column for one where it can; UTF-8 untouched', () => {
    const c = { LANG: 'C' };
    // Lines of the CLI's own output (simulate, estimate, bench) and their ASCII, written out by hand.
    assert.equal(terminalText('KV pool: 28,363 pages × 16 tokens', c), 'KV pool: 28,363 pages x 16 tokens');
    assert.equal(terminalText('offered = (requests − 1) / span', c), 'offered = (requests - 1) / span');
    assert.equal(terminalText('compute: 23.5 µs/token + 1.77 μs/request', c), 'compute: 23.5 us/token + 1.77 us/request');
    assert.equal(terminalText('rate: FLOPs (4·B·H·N_q·N_k·D) ≈ 131,100 B ≥ 2 ≤ 3 ± 34 → ok…', c), 'rate: FLOPs (4*B*H*N_q*N_k*D) ~ 131,100 B >= 2 <= 3 +/- 34 -> ok...');
    assert.equal(terminalText('2 · √(requests / 2), 10⁹ FLOP/s, (d)², T ÷ tp — p10–p90, Σ e2e', c), '2 * sqrt(requests / 2), 10^9 FLOP/s, (d)^2, T / tp -- p10-p90, sum e2e');
    // An accented letter as its base letter; a character with no ASCII left as given (a CJK file name).
    assert.equal(terminalText('café 模型.yaml', c), 'cafe 模型.yaml');
    // UTF-8 (and no locale set at all): as given.
    assert.equal(terminalText('2 × 8 GiB ≈ 16 GiB …', { LANG: 'en_US.UTF-8' }), '2 × 8 GiB ≈ 16 GiB …');
    assert.equal(terminalText('2 × 8 GiB', {}), '2 × 8 GiB');
    // Idempotent.
    assert.equal(terminalText(terminalText('a … b ≥ c', c), c), 'a ... b >= c');
  });

  it('renderTable measures the cells as printed: under LANG=C a cell with … is 3 columns wider, and the columns still align', () => {
    const saved = process.env.LC_ALL;
    try {
      process.env.LC_ALL = 'C';
      // 'a…' is 'a...' (4 columns): the value column starts at 4 + 2 = 6 in every row.
      assert.equal(renderTable(['k', 'v'], [['a…', '1'], ['b', '2']], [false, true], { rule: false }), 'k     v\na...  1\nb     2');
    } finally {
      if (saved === undefined) delete process.env.LC_ALL;
      else process.env.LC_ALL = saved;
    }
  });
});
