// A vLLM log holding several start-ups (a server restarted into the same file): parseVllmLog
// reads one of them, never a mix. The logs are the fixtures' own lines (test/unit/fixtures/vllm-logs,
// README there) put one after the other, as a restart appends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseVllmLog } from '../../core/vllmlog/index';

const LOGS = join(__dirname, 'fixtures', 'vllm-logs');
const lines = (name: string) => readFileSync(join(LOGS, name), 'utf8').trimEnd().split('\n');
const GIB = 1024 ** 3;
const gib = (bytes: number | undefined) => (bytes === undefined ? undefined : Math.round((bytes / GIB) * 100) / 100);

// The 0.11 Qwen2.5-7B start-up (7 lines, from "vLLM API server version 0.11.0") and then the 0.6.4
// Llama-3.1-8B one (8 lines, from "vLLM API server version 0.6.4" at line 8).
const qwen = lines('constructed-v0.11-qwen2.5-7b.log');
const llama = lines('constructed-v0.6.4-llama-3.1-8b.log');
const restarted = [...qwen, ...llama].join('\n');

test('a log of two start-ups is read for the last: no figure or setting of the first leaks into it', () => {
  const log = parseVllmLog(restarted);
  assert.deepEqual(log.startups, [{ line: 1, memoryLines: true }, { line: 8, memoryLines: true }]);
  assert.equal(log.startup, 2);
  // 0.6.4's figures, at their lines in the whole file (its line 5 is line 12).
  assert.equal(gib(log.figures.totalGpuMemoryBytes?.value), 21.98);
  assert.equal(log.figures.totalGpuMemoryBytes?.line, 12);
  assert.equal(log.figures.gpuBlocks?.value, 1952);
  // The 0.11 start-up's "Desired GPU memory utilization is (0.9, 71.27 GiB)" gave a usable 71.27 GiB
  // beside 0.6.4's 21.98 GiB device, its 'max_num_seqs': 256 a setting 0.6.4's args do not give, and
  // its 1,038,832 KV cache tokens: none of them is of the start-up read.
  assert.equal(log.figures.usableBytes, undefined);
  assert.equal(log.settings.maxNumSeqs, undefined);
  assert.equal(log.figures.kvCacheTokens, undefined);
  assert.equal(log.settings.version?.value, '0.6.4');
  assert.equal(log.settings.engine?.value, 'V0');
  // The first start-up on its own: 0.11's figures, V1.
  const first = parseVllmLog(restarted, { startup: 1 });
  assert.equal(first.startup, 1);
  assert.equal(first.figures.kvCacheTokens?.value, 1_038_832);
  assert.equal(gib(first.figures.usableBytes?.value), 71.27);
  assert.equal(first.figures.gpuBlocks, undefined);
  assert.equal(first.settings.version?.value, '0.11.0');
  // A start-up that printed no memory line (it failed before profiling) is not the one read by default.
  const failed = parseVllmLog([...llama, qwen[0], qwen[1]].join('\n'));
  assert.equal(failed.startups.length, 2);
  assert.equal(failed.startup, 1);
  assert.equal(failed.figures.gpuBlocks?.value, 1952);
});

test('one start-up stays one: the server lines once each, several engine processes (data parallelism), worker copies of memory lines', () => {
  assert.equal(parseVllmLog(qwen.join('\n')).startups.length, 1);
  assert.equal(parseVllmLog(lines('constructed-v0.6.4-tp2-meta-llama-3-8b.log').join('\n')).startups.length, 1);
  // Two engine cores of one server, each printing its "Initializing" line and memory lines, interleaved.
  const engine = (dp: number) => `(EngineCore_DP${dp} pid=${dp + 2}) INFO 08-20 10:00:10 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: model='Qwen/Qwen2.5-7B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1`;
  const dp = parseVllmLog([qwen[0], qwen[1], engine(0), qwen[2], qwen[3], engine(1), qwen[3].replace('DP0 pid=2', 'DP1 pid=3'), qwen[4]].join('\n'));
  assert.equal(dp.startups.length, 1);
  // The same engine process's line again (an offline LLM() restarted, no API server): a second start-up.
  const offline = parseVllmLog([engine(0), qwen[2], qwen[3], engine(0), qwen[2], qwen[4]].join('\n'));
  assert.deepEqual(offline.startups.map((s) => s.line), [1, 4]);
  assert.equal(offline.figures.kvCacheBytes, undefined);
  assert.equal(offline.figures.kvCacheTokens?.line, 6);
});
