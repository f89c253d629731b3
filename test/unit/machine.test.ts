/**
 * The machine a run names (core/machine.ts): the CPU's generation where its name does not tell it,
 * and the bench line that prints it (s39 newcomer 4: a Zen 3 and a Zen 4 VM both read "AMD EPYC").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuSignature } from '../../core/machine';
import { formatRun } from '../../runner/table';
import { run } from '../fixtures/run';

test('cpuSignature: x86 family/model and Arm implementer/part from /proc/cpuinfo\'s first processor; none from a file naming neither', () => {
  const zen4 = 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\ncpu family\t: 6\nmodel\t\t: 143\n';
  assert.equal(cpuSignature(zen4), 'family 25 model 17');
  // Neoverse-N1 (Graviton 2): implementer 0x41 (Arm), part 0xd0c.
  assert.equal(cpuSignature('processor\t: 0\nBogoMIPS\t: 243.75\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n'), 'implementer 0x41 part 0xd0c');
  assert.equal(cpuSignature('processor\t: 0\nmodel name\t: something\n'), undefined);
});

test('the bench line names the CPU with its family and model when the run recorded them, as before when it did not', () => {
  const zen4 = formatRun({ ...run, environment: { ...run.environment, cpuSignature: 'family 25 model 17' } });
  assert.match(zen4, /^AMD EPYC \(family 25 model 17\) · 2 threads · avx2 · peaks: /m);
  assert.match(formatRun(run), /^AMD EPYC · 2 threads · avx2 · peaks: /m);
  // s47 newcomer LOW-1: one thread (the WebAssembly build's) is "1 thread", not "1 threads".
  assert.match(formatRun({ ...run, environment: { ...run.environment, threads: 1 } }), /^AMD EPYC · 1 thread · avx2 · peaks: /m);
});

test('a bench cancelled before its first case prints no kernel table header, and the table says nothing of the cancel (the CLI\'s stderr line does)', () => {
  // s46 newcomer46 L4: SIGINT during the first case printed the bare "kernel  shape  dtype ..." header.
  const cancelled = formatRun({ ...run, cases: [], status: 'cancelled' });
  assert.doesNotMatch(cancelled, /^kernel +shape +dtype/m);
  // s47 newcomer: Ctrl-C printed "run cancelled" here on stdout besides the stderr line (runner/errors.ts cancelLine).
  assert.doesNotMatch(cancelled, /cancel/);
  // A failed run still says why, here, where nothing else does.
  assert.match(formatRun({ ...run, status: 'failed', error: 'out of memory' }), /\nrun failed: out of memory$/);
  // With its cases, the header is there.
  assert.match(formatRun(run), /^kernel +shape +dtype/m);
});
