/**
 * npm run record:run
 *
 * Records the run the webview, extension and e2e tests share: `attnscope bench
 * test/fixtures/run.attn.yaml --quick --json` with the built runner (dist/runner.js), written
 * as test/fixtures/run.ts, a TypeScript module whose literal is declared a RunResult, so
 * `npm run typecheck` fails when the runner's output and the run contract part (a field missing,
 * one the contract lacks, a wrong type). A declaration rather than `satisfies`: the tests read
 * the fixture as any RunResult, not as the literal's narrower type. Paths in the
 * profile are made relative to the repository (the recording machine's folders mean nothing
 * elsewhere); every figure is as measured. Tests derive what they expect from the fixture, so
 * recording again on another machine needs no test edits. Exit 1 when the bench fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { RunResult } from '../core/protocol/run';

const root = join(__dirname, '..');

/** JSON with each object or array of plain values on one line (a pool sample, a samplesNs array), the rest indented. */
function layout(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  if (value === null || typeof value !== 'object' || Object.values(value).every((v) => v === null || typeof v !== 'object')) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + layout(v, inner)).join(',\n')}\n${indent}]`;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${layout(v, inner)}`).join(',\n')}\n${indent}}`;
}
const profile = join(root, 'test', 'fixtures', 'run.attn.yaml');
const target = join(root, 'test', 'fixtures', 'run.ts');
const dir = mkdtempSync(join(tmpdir(), 'attnscope-record-'));
const out = join(dir, 'run.json');
try {
  const bench = spawnSync(process.execPath, [join(root, 'dist', 'runner.js'), 'bench', profile, '--quick', '--json', out], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (bench.status !== 0) {
    process.stderr.write(`record:run: attnscope bench exited ${bench.status ?? bench.signal}\n`);
    process.exit(1);
  }
  const run = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  const rel = (p: string | null): string | null => p && relative(root, p).split(sep).join('/');
  run.profile.sourcePath = rel(run.profile.sourcePath);
  run.profile.modelPath = rel(run.profile.modelPath);
  const env = run.environment;
  const header = `/**
 * A recorded run: \`attnscope bench test/fixtures/run.attn.yaml --quick\` on ${env.cpuModel}
 * (${env.cpuCores} CPUs, ${env.simd}) at ${run.createdAt}, written by \`npm run record:run\`
 * (scripts/record-run.ts; paths made relative to the repository). Do not edit by hand: record again.
 * Shared by the webview, extension and e2e tests; its type holds it to the contract.
 */
import type { RunResult } from '../../core/protocol/run';

export const run: RunResult = `;
  writeFileSync(target, `${header}${layout(run)};\n`);
  process.stdout.write(`record:run: wrote ${relative(root, target)} (${run.cases.length} cases, ${run.pool?.samples.length ?? 0} pool samples)\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
