/**
 * What the CLI prints names what a user knows (a profile key, a flag, the source of a figure),
 * not this tool's source files or identifiers. s47 newcomer: a tensor- and pipeline-parallel
 * profile's notes ended "(... ; replicatedWeights)", "(... ; cpuOffload)", "(modelled:
 * stageSendPerTokenS)" and "(PCIe Gen5 x16, modelled: gpus.ts hostLinkBytesPerSec)"; a Mamba
 * hybrid's "(mambaStateBytesPerSequence)"; an MLA model's "(...; mlaDecodeCopies)". Each profile
 * below reaches one or more of those notes; the built dist/runner.js prints them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const configs = join(root, 'test', 'fixtures', 'configs');

/** stdout and stderr of `attnscope ...args`. */
function printed(args: string[]): string {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `attnscope ${args.join(' ')}: ${r.stderr}`);
  return `${r.stdout}\n${r.stderr}`;
}

/** vLLM's own names a note quotes as its source: MLA's kv_b_proj halves (its MLA attention backend's process_weights_after_loading). */
const VLLM_NAMES = new Set(['W_UK_T', 'W_UV']);

/**
 * The words of `text` that are this tool's own: a source file (`gpus.ts`, `runner/load.ts`), a
 * camelCase identifier (`replicatedWeights`; "vLLM" is the engine's name), a constant
 * (`ALL_REDUCE_LATENCY_S`; an environment variable a user sets, VLLM_*, is theirs, and vLLM's tensor names are vLLM's).
 */
function internalWords(text: string): string[] {
  const files = text.match(/[\w./-]+\.(?:ts|mjs|cjs)\b/g) ?? [];
  const camel = (text.match(/\b[a-z]+[A-Z][A-Za-z0-9]*\b/g) ?? []).filter((w) => w !== 'vLLM');
  const constants = (text.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g) ?? []).filter((w) => !w.startsWith('VLLM_') && !VLLM_NAMES.has(w));
  return [...new Set([...files, ...camel, ...constants])];
}

const WORKLOAD = 'workload: { requests: 40, arrival_rate: 2, max_model_len: 4096, prompt_len: { dist: fixed, value: 512 }, output_len: { dist: fixed, value: 32 } }\n';

test('estimate and simulate of tensor-, pipeline-parallel and offloading profiles name no source file or identifier', () => {
  const dir = tempDir('attnscope-words-');
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  // Llama-2-7B on 2 × 2 H100s with 1 GiB of weights per GPU in CPU memory: the replicated norms,
  // the offload note, the stage send and the host link in the step time.
  const llama = write('llama.attn.yaml', `model: ${join(configs, 'Llama-2-7b-hf.config.json')}\ndevice: { gpu: H100 SXM, tensor_parallel_size: 2, pipeline_parallel_size: 2, cpu_offload_gb: 1 }\n${WORKLOAD}`);
  // Jamba (Mamba layers beside attention): the state per sequence, in the estimate and the step time.
  const jamba = write('jamba.attn.yaml', `model: ${join(root, 'test', 'fixtures', 'hybrid', 'jamba-v0.1.config.json')}\ndevice: { gpu: H100 SXM, tensor_parallel_size: 8 }\n${WORKLOAD}`);
  // DeepSeek-V3 (MLA, fp8 kv_b_proj): the 16-bit kv_b_proj copies vLLM keeps for decode.
  const deepseek = write('deepseek.attn.yaml', `model: ${join(configs, 'DeepSeek-V3.config.json')}\ndevice: { gpu: H200, tensor_parallel_size: 8, pipeline_parallel_size: 2, cpu_offload_gb: 1 }\n`);
  const seen: string[] = [];
  for (const args of [['estimate', llama], ['simulate', llama], ['simulate', llama, '--explain'], ['estimate', jamba], ['simulate', jamba, '--explain'], ['estimate', deepseek]]) {
    // simulate with --explain: the step time's derivation (where the host link and stage-send notes are) is printed only with it (ae5170bb).
  // The paths are the test's own (a temp folder's random name, aBcDeF, reads as camelCase): left out of the check.
    const text = printed(args).replaceAll(dir, 'DIR').replaceAll(root, 'ROOT');
    seen.push(text);
    assert.deepEqual(internalWords(text), [], `attnscope ${args.join(' ')}`);
  }
  // The notes those words ended are there (so the check above read them): each in the user's terms.
  const all = seen.join('\n').replace(/\s+/g, ' ');
  assert.match(all, /cpu_offload_gb 1: the [\d.]+ GiB of weights per GPU kept in CPU memory/);
  assert.match(all, /a typical pinned-memory copy rate over PCIe Gen5 x16, modelled\)/);
  assert.match(all, /the send of each token's hidden states to the next stage/);
  assert.match(all, /copies of kv_b_proj's halves W_UK_T and W_UV/);
  assert.match(all, /keep a constant state per sequence/);
});

test('the example profiles\' comments name no source or test file of this tool (s50 newcomer LOW-6: "test/cli/readme-figures.test.ts"): what a user runs instead', () => {
  const examples = join(root, 'examples');
  const profiles = readdirSync(examples).filter((f) => /\.attn\.(ya?ml|json)$/.test(f));
  assert.ok(profiles.length >= 4, profiles.join(', '));
  for (const f of profiles) {
    // The YAML comments (a JSON profile has none; its text is read whole).
    const text = readFileSync(join(examples, f), 'utf8');
    const comments = f.endsWith('.json') ? text : text.split('\n').map((l) => (l.includes('#') ? l.slice(l.indexOf('#')) : '')).join('\n');
    assert.deepEqual(comments.match(/[\w./-]+\.(?:ts|mjs|cjs)\b/g) ?? [], [], f);
  }
  // The saturated throughput the comment quotes is what the command it names prints (test/cli/readme-figures.test.ts runs it).
  assert.match(readFileSync(join(examples, 'llama-3.1-8b.attn.yaml'), 'utf8'), /# modelled saturated throughput, 31\.0 requests\/s: its μ line under `attnscope simulate llama-3\.1-8b\.attn\.yaml --max-rate --slo-ttft-ms 1000`/);
});
