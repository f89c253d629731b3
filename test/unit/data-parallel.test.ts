/**
 * device.data_parallel_size (vLLM --data-parallel-size): replicas, each a whole engine with its own
 * pool. Accepted in profiles and sweeps, one replica's estimate with a note, never steered to
 * tensor_parallel_size by "did you mean", refused by simulate, and read from vLLM logs where each
 * engine core's pool is compared on its own (s39 newcomer F1, F10).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closestKey, closestMatch } from '../../core/config/suggest';
import { axisProblems } from '../../core/config/sweep';
import { readProfile } from '../../core/config/index';
import { estimate } from '../../core/estimate/index';
import { deployedGpuCount, gpuCount } from '../../core/format';
import { compareVllmLog, formatComparisonText, logFigureLines, parseVllmLog, rankNotes } from '../../core/vllmlog/index';
import { PoolConfigError, simulatePool } from '../../runner/simulate/index';
import { exampleProfile } from '../fixtures/profile';

const profile = (device: string) => exampleProfile(`model: ./llama-3.1-8b/config.json\ndevice: ${device}\nworkload: { requests: 3 }\n`);

test('data_parallel_size is read; the estimate is one replica\'s, unchanged, with a note saying so', () => {
  const one = estimate(profile('{ gpu: H100 SXM }'));
  const two = estimate(profile('{ gpu: H100 SXM, data_parallel_size: 2 }'));
  // Data parallelism replicates the engine (vllm/v1/engine/core.py: one EngineCore per DP rank,
  // each loading the whole model and sizing its own pool): no per-GPU figure changes.
  assert.equal(two.weightsBytesPerGpu, one.weightsBytesPerGpu);
  assert.equal(two.pool.pages, one.pool.pages);
  assert.equal(two.pool.budgetBytes, one.pool.budgetBytes);
  const note = two.notes.find((n) => n.startsWith('data_parallel_size 2'));
  assert.ok(note, two.notes.join('\n'));
  assert.match(note, /one replica's/);
  assert.match(note, /2 GPUs in all/);
  assert.ok(!one.notes.some((n) => n.includes('data_parallel_size')));
});

test('"did you mean" never steers a data-parallel key to tensor_parallel_size', () => {
  const device = ['backend', 'memory_gib', 'gpu_memory_utilization', 'tensor_parallel_size', 'pipeline_parallel_size', 'gpu'];
  // The bug: 4 edits apart, within closestMatch's reach for an 18-letter word.
  assert.equal(closestMatch('data_parallel_size', device), 'tensor_parallel_size');
  assert.equal(closestKey('data_parallel_size', device), undefined);
  assert.equal(closestKey('dp_size', device), undefined);
  assert.equal(closestKey('data_paralel_size', [...device, 'data_parallel_size']), 'data_parallel_size');
  // The other kinds still find their own key.
  assert.equal(closestKey('tensor_paralel_size', device), 'tensor_parallel_size');
  // In a profile: device takes it; a section that does not (engine) says unknown, without a TP hint.
  const r = readProfile('model: ./m.json\nengine: { data_parallel_size: 2 }\n', '/p/x.attn.yaml', { readFile: () => '{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100,"intermediate_size":128}' });
  const unknown = r.problems.find((p) => p.code === 'unknown-key');
  assert.ok(unknown, JSON.stringify(r.problems));
  assert.doesNotMatch(unknown.message, /tensor_parallel_size/);
});

test('sweeps take a data_parallel_size axis and count tp × pp × dp GPUs', () => {
  const axis = (key: string) => ({ key, values: [], keyRange: null });
  assert.deepEqual(axisProblems([axis('device.data_parallel_size')], () => ({ offset: 0, length: 0 })), []);
  const wrong = axisProblems([axis('engine.data_parallel_size')], () => ({ offset: 0, length: 0 }));
  assert.equal(wrong.length, 1);
  assert.doesNotMatch(wrong[0]!.message, /tensor_parallel_size/);
  const d = { tensorParallelSize: 2, pipelineParallelSize: 2, dataParallelSize: 3 };
  assert.equal(gpuCount(d), 4);
  assert.equal(deployedGpuCount(d), 12);
  assert.equal(deployedGpuCount({ tensorParallelSize: 4 }), 4);
});

test('simulate refuses data_parallel_size > 1, naming what is not modelled', async () => {
  await assert.rejects(simulatePool(profile('{ gpu: H100 SXM, data_parallel_size: 2 }')), (e: unknown) => {
    assert.ok(e instanceof PoolConfigError);
    assert.equal(e.key, 'device.data_parallel_size');
    assert.match(e.message, /^data_parallel_size 2 is not simulated: .*DPLBAsyncMPClient/);
    return true;
  });
});

/** A vLLM 0.10.1 V1 log of Llama-3.1-8B under data_parallel_size 2: two engine cores, each printing its own pool. */
const DP_LOG = [
  "INFO 08-20 10:00:00 [utils.py:326] non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 32768, 'data_parallel_size': 2}",
  "(EngineCore_0 pid=101) INFO 08-20 10:00:10 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=2, kv_cache_dtype=auto",
  "(EngineCore_1 pid=102) INFO 08-20 10:00:10 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=2, kv_cache_dtype=auto",
  '(EngineCore_0 pid=101) INFO 08-20 10:01:20 [gpu_worker.py:276] Available KV cache memory: 54.07 GiB',
  '(EngineCore_1 pid=102) INFO 08-20 10:01:20 [gpu_worker.py:276] Available KV cache memory: 53.07 GiB',
  '(EngineCore_0 pid=101) INFO 08-20 10:01:21 [kv_cache_utils.py:849] GPU KV cache size: 442,928 tokens',
  '(EngineCore_1 pid=102) INFO 08-20 10:01:21 [kv_cache_utils.py:849] GPU KV cache size: 434,736 tokens',
].join('\n');

test('vllm-log: data-parallel engine cores are replicas with their own pools, each compared, data_parallel_size named', () => {
  // By hand: 54.07 GiB = 58,057,318,318 B // 2,097,152 B a block (32 layers · 16 · 2 · 8 · 128 · 2)
  // = 27,683 blocks · 16 = 442,928 tokens; 53.07 GiB → 27,171 · 16 = 434,736 (kv_cache_utils get_num_blocks).
  const log = parseVllmLog(DP_LOG);
  assert.equal(log.startups.length, 1);
  assert.equal(log.settings.dataParallelSize?.value, 2);
  const notes = rankNotes(log);
  assert.ok(notes.length > 0);
  for (const n of notes) {
    assert.match(n.message, /once per data-parallel engine/);
    assert.doesNotMatch(n.message, /sizes every rank's pool by the smallest/);
  }
  assert.ok(logFigureLines(log).some((l) => l.includes('data_parallel_size 2')));
  const p = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\n');
  const c = compareVllmLog(log, p);
  assert.ok(c.fromLog.some((s) => s.startsWith('data_parallel_size 2 (line 3')), c.fromLog.join('; '));
  const tokens = c.estimate.pool.tokens.toLocaleString('en-US');
  const note = c.notes.find((n) => n.includes('data-parallel replicas'));
  assert.ok(note, formatComparisonText(c));
  assert.match(note, new RegExp(`EngineCore_0: KV cache memory 54\\.07 GiB \\(line 4; .*GPU KV cache size 442,928 tokens \\(line 6; estimate ${tokens} tokens`));
  assert.match(note, new RegExp(`EngineCore_1: KV cache memory 53\\.07 GiB \\(line 5; .*GPU KV cache size 434,736 tokens \\(line 7; estimate ${tokens} tokens`));
});
