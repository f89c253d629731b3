/**
 * `attnscope vllm-log` through the built CLI (dist/runner.js): the A10 log of
 * test/unit/fixtures/vllm-logs against Llama-3.1-8B, and the bad inputs (exit 2, one line).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const log = join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'a10-llama-3.1-8b-v0.log');
const llamaConfig = join(root, 'examples', 'llama-3.1-8b', 'config.json');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('vllm-log LOG --profile config.json: every figure beside the estimate, the line it came from, and why', () => {
  const r = cli(['vllm-log', log, '--profile', llamaConfig]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /GPU blocks\s+2,356 \[5\]/);
  // The A10's 22.07 GiB takes vLLM's default max_num_batched_tokens 2048 below 70 GiB: the
  // sampler phase, 2048 · 2 · 4096 + 3 · 256 · 128256 · 4 B = 0.38 GiB, and blocks within 5%.
  assert.match(r.stdout, /activation peak \(PyTorch\)\s+0\.22 GiB \[4\]\s+0\.38 GiB\s+\+0\.16 GiB/);
  assert.match(r.stdout, /GPU blocks\s+2,356 \[5\]\s+2,264\s+−92 \(−3\.9%\)/);
  assert.match(r.stdout, /maximum concurrency for 131,072 tokens\s+0\.29x \[6\]/);
  assert.match(r.stdout, /settings from the log: device memory 22\.07 GiB/);
});

test('vllm-log without a profile lists the figures; --json gives them with their lines', () => {
  const r = cli(['vllm-log', log]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /GPU blocks\s+2,356\s+\(line 5\)/);
  assert.match(r.stdout, /give --profile/);
  const j = cli(['vllm-log', log, '--json']);
  assert.equal(JSON.parse(j.stdout).figures.gpuBlocks.value, 2356);
});

test('vllm-log bad input: a missing file, a file with no vLLM line, a bad profile: exit 2, one line each', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-vllmlog-'));
  const empty = join(dir, 'other.log');
  writeFileSync(empty, 'nothing from vLLM here\n');
  for (const args of [['vllm-log', join(dir, 'missing.log')], ['vllm-log', empty], ['vllm-log', log, '--profile', join(dir, 'nope.attn.yaml')], ['vllm-log'], ['vllm-log', log, '--bogus']]) {
    const r = cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, args.join(' '));
  }
  const r = cli(['vllm-log', empty]);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /other\.log:1:1: no vLLM start-up memory line found/);
});
