/**
 * "Open sweep results" finds the reports where `attnscope sweep` writes them: one level below
 * the default folder (.attnscope/sweeps/<name>-<hash>/sweep-report.json), or in the folder itself.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sweepReportsIn } from '../../extension/sweepReports';
import { tempDir } from '../fixtures/tmp';

/** A minimal report: what the command reads (kind, name, createdAt, rows). */
function report(dir: string, name: string, createdAt: string, points: number): void {
  mkdirSync(dir, { recursive: true });
  const rows = Array.from({ length: points }, (_, i) => ({ id: `p${i}` }));
  writeFileSync(join(dir, 'sweep-report.json'), JSON.stringify({ schema: 1, kind: 'attnscope-sweep-report', name, createdAt, rows }));
}

describe('sweepReportsIn', () => {
  it('finds the one sweep one level down (what `attnscope sweep` writes)', async () => {
    const sweeps = join(tempDir('attnscope-sweeps-'), '.attnscope', 'sweeps');
    report(join(sweeps, 'page-size-d4cf7d4c'), 'page-size.attn.yaml', '2026-12-02T10:00:00.000Z', 9);
    const found = await sweepReportsIn(sweeps);
    assert.deepEqual(found.map((e) => [e.file, e.label, e.points]), [[join(sweeps, 'page-size-d4cf7d4c', 'sweep-report.json'), 'page-size.attn.yaml (page-size-d4cf7d4c)', 9]]);
  });

  it('lists several newest first, leaving out folders without a readable report', async () => {
    const sweeps = tempDir('attnscope-sweeps-');
    report(join(sweeps, 'a-11111111'), 'a.attn.yaml', '2026-12-01T10:00:00.000Z', 3);
    report(join(sweeps, 'b-22222222'), 'b.attn.yaml', '2026-12-02T10:00:00.000Z', 4);
    mkdirSync(join(sweeps, 'half-33333333'));
    writeFileSync(join(sweeps, 'half-33333333', 'sweep-report.json'), '{"kind": "attnscope-sweep-re');
    mkdirSync(join(sweeps, 'empty'));
    const found = await sweepReportsIn(sweeps);
    assert.deepEqual(found.map((e) => e.label), ['b.attn.yaml (b-22222222)', 'a.attn.yaml (a-11111111)']);
  });

  it('takes the folder\'s own report (`attnscope merge <folder>`) over its subfolders', async () => {
    const dir = tempDir('attnscope-sweeps-');
    report(dir, 'merged.attn.yaml', '2026-12-02T10:00:00.000Z', 2);
    report(join(dir, 'sub'), 'sub.attn.yaml', '2026-12-02T11:00:00.000Z', 1);
    assert.deepEqual((await sweepReportsIn(dir)).map((e) => e.label), ['merged.attn.yaml (.)']);
  });

  it('a missing folder has none', async () => {
    assert.deepEqual(await sweepReportsIn(join(tmpdir(), 'attnscope-no-such-folder')), []);
  });
});
