import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_TABLE_WIDTH, renderTable, TABLE_WIDTH, tableWidth } from '../../core/textTable';

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
