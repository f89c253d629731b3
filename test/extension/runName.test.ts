/** Run names (extension/runName.ts) and refusals in the editor's terms (extension/refusal.ts). */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { benchCancelledMessage, busyMessage, crashMessage, finishedMessage, refusalOf, interruptedMessage, noRunsMessage, simulationStoppedMessage, traceGoneMessage } from '../../extension/refusal';
import type { PoolResult } from '../../core/protocol/run';
import { distinctRunNames, modelLabel, runName, runSetup } from '../../extension/runName';
import { listRunsIn, runId, saveRun } from '../../extension/history';
import { hubModelId } from '../../core/modelLabel';
import { run } from '../fixtures/run';
import { tempDir } from '../fixtures/tmp';

const model = run.profile.model;

describe('run names', () => {
  it('name the model by _name_or_path, else X.config.json, else the folder; an inline model by model_type', () => {
    // Llama-2-7b-hf's config.json as the hub serves it carries "_name_or_path": "meta-llama/Llama-2-7b-hf".
    assert.equal(modelLabel({ modelPath: '/w/ckpt/config.json', model }, '{"_name_or_path": "meta-llama/Llama-2-7b-hf"}'), 'Llama-2-7b-hf');
    assert.equal(modelLabel({ modelPath: '/w/ckpt/config.json', model }, '{"_name_or_path": "/data/ckpts/my-model/"}'), 'my-model');
    assert.equal(modelLabel({ modelPath: '/w/ckpt/config.json', model }, '{"_name_or_path": ""}'), 'ckpt');
    assert.equal(modelLabel({ modelPath: '/w/configs/qwen2-7b.config.json', model }, '{}'), 'qwen2-7b');
    // s39 newcomer 5: a config saved under its model's name (README: the CLI reads any other *.json as a config), not its folder's.
    assert.equal(modelLabel({ modelPath: '/tmp/nc39w/Llama-3.1-8B.json', model }, '{}'), 'Llama-3.1-8B');
    assert.equal(modelLabel({ modelPath: '/w/Qwen2.5-7B/CONFIG.JSON', model }, '{}'), 'Qwen2.5-7B');
    assert.equal(modelLabel({ modelPath: null, model }), 'llama');
    // s40 newcomer 6: a config in the Hugging Face hub cache (models--ORG--NAME/snapshots/<revision>/config.json) by its model, not its revision.
    assert.equal(modelLabel({ modelPath: '/home/u/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B/snapshots/abc123/config.json', model }, '{}'), 'Llama-3.1-8B');
    assert.equal(modelLabel({ modelPath: '/hub/models--Org--Name/snapshots/abc123/sub/config.json', model }, '{}'), 'Name');
    assert.equal(hubModelId('/hub/models--meta-llama--Llama-3.1-8B/snapshots/abc123/config.json'), 'meta-llama/Llama-3.1-8B');
    assert.equal(hubModelId('/w/snapshots/abc123/config.json'), null);
    assert.equal(hubModelId('/hub/models--gpt2/snapshots/config.json'), null);
  });

  it('read _name_or_path from the config file when no text is given', () => {
    const dir = tempDir('attnscope-name-');
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm', 'config.json'), '{"_name_or_path": "mistralai/Mistral-7B-v0.1", "model_type": "mistral"}');
    assert.equal(modelLabel({ modelPath: join(dir, 'm', 'config.json'), model }), 'Mistral-7B-v0.1');
    assert.equal(modelLabel({ modelPath: join(dir, 'missing', 'config.json'), model }), 'missing');
  });

  it('are model · profile · mode, without the profile when the run is of the config itself; ids keep all three', () => {
    const p = { modelPath: '/w/llama-3.1-8b/config.json', model };
    assert.equal(runName(p, '/w/serve.attn.yaml', 'quick', '{}'), 'llama-3.1-8b · serve.attn.yaml · quick');
    assert.equal(runName(p, '/w/llama-3.1-8b/config.json', 'full', '{}'), 'llama-3.1-8b · full');
    // The editor's unsaved text of the file (s41 newcomer-ed F9: named as the file on disk, whose arrival_rate was 5, not the 12 simulated).
    assert.equal(runName(p, '/w/serve.attn.yaml', 'simulation', '{}', undefined, true), 'llama-3.1-8b · serve.attn.yaml (unsaved changes) · simulation');
    assert.equal(runName(p, '/w/llama-3.1-8b/config.json', 'full', '{}', undefined, true), 'llama-3.1-8b (unsaved changes) · full');
    // Four runs of four config.json files used to be four rows called "config.json".
    assert.notEqual(runName({ modelPath: '/w/a/config.json', model }, '/w/a/config.json', 'full', '{}'), runName({ modelPath: '/w/b/config.json', model }, '/w/b/config.json', 'full', '{}'));
    assert.equal(runId('2026-12-01T10:00:00Z', 'llama-3.1-8b · serve.attn.yaml · quick'), '20261201-100000-llama-3.1-8b_serve.attn_quick');
  });

  it('name the trace a simulation replayed last; the message of a trace no longer there says the drawn workload is another load', () => {
    const p = { modelPath: '/w/qwen2.5-7b/config.json', model };
    assert.equal(runName(p, '/w/qwen-tiny.attn.yaml', 'simulation', '{}', 'mooncake.jsonl'), 'qwen2.5-7b · qwen-tiny.attn.yaml · simulation · trace mooncake.jsonl');
    // A lens simulation of a profile with workload.trace: its own trace, by file name, as History lists the saved run (s41 newcomer-ed F11:
    // the dashboard's heading read "… · simulation" while History read "… · simulation · trace chat.jsonl"). A replay's trace wins; a benchmark names none.
    const withTrace = { ...p, workload: { ...run.profile.workload!, trace: { path: './traces/chat.jsonl', resolvedPath: '/w/traces/chat.jsonl' } } };
    assert.equal(runName(withTrace, '/w/trace.attn.yaml', 'simulation', '{}'), 'qwen2.5-7b · trace.attn.yaml · simulation · trace chat.jsonl');
    assert.equal(runName(withTrace, '/w/trace.attn.yaml', 'simulation', '{}', '/old/mooncake.jsonl'), 'qwen2.5-7b · trace.attn.yaml · simulation · trace mooncake.jsonl');
    assert.equal(runName(withTrace, '/w/trace.attn.yaml', 'quick', '{}'), 'qwen2.5-7b · trace.attn.yaml · quick');
    assert.equal(
      traceGoneMessage('qwen-tiny.attn.yaml', { path: 'traces/mooncake.jsonl', resolvedPath: '/w/traces/mooncake.jsonl' }),
      "AttnScope: the trace traces/mooncake.jsonl this run replayed is no longer at /w/traces/mooncake.jsonl, so it cannot be replayed. Simulating qwen-tiny.attn.yaml instead draws the profile's workload: another load, whose figures are not comparable with the trace's.",
    );
  });

  it('tells runs of one name apart by the settings that differ among them (s41 newcomer-ed F5 d: two lens runs of decision.attn.yaml, H100 SXM and H200, were one name)', () => {
    const name = 'llama-3.1-70b · decision.attn.yaml · simulation';
    const names = distinctRunNames([
      { name, setup: ['gpu H200', 'tp 8', 'arrival_rate 8'] },
      { name: 'other · simulation', setup: ['gpu H200'] },
      { name, setup: ['gpu H100 SXM', 'tp 8', 'arrival_rate 8'] },
      { name, setup: ['gpu H100 SXM', 'tp 4', 'arrival_rate 8'] },
    ]);
    assert.deepEqual(names, [
      `${name} · gpu H200 · tp 8`,
      'other · simulation',
      `${name} · gpu H100 SXM · tp 8`,
      `${name} · gpu H100 SXM · tp 4`,
    ]);
    // One setup: the names stay (the pickers show each run's time beside it); a key one run lacks is "not set".
    assert.deepEqual(distinctRunNames([{ name, setup: ['tp 8'] }, { name, setup: ['tp 8'] }]), [name, name]);
    assert.deepEqual(distinctRunNames([{ name, setup: ['tp 8', 'arrival_rate 2'] }, { name, setup: ['tp 8'] }]), [`${name} · arrival_rate 2`, `${name} · arrival_rate not set`]);
  });

  it('History lists two saved runs of one name with the GPU their step times were modelled for', async () => {
    const dir = tempDir('attnscope-names-');
    const sim = (gpu: string, createdAt: string) => ({ ...run, kind: 'simulate' as const, cases: [], createdAt, name: 'm · decision.attn.yaml · simulation', pool: { ...run.pool!, stepTime: { ...run.pool!.stepTime!, gpu } } });
    await saveRun(dir, sim('H100 SXM', '2026-12-05T10:00:00.000Z'));
    await saveRun(dir, sim('H200', '2026-12-05T10:05:00.000Z'));
    assert.deepEqual(runSetup(sim('H200', '')).slice(0, 2), ['gpu H200', `tp ${run.profile.device.tensorParallelSize}`]);
    const { runs } = await listRunsIn([{ path: dir }]);
    assert.deepEqual(runs.map((r) => r.name), ['m · decision.attn.yaml · simulation · gpu H200', 'm · decision.attn.yaml · simulation · gpu H100 SXM']);
  });
});

describe('refused runs', () => {
  // The runner's words for a CUDA profile on a machine without the driver (runner/bench.ts selectBackend, CLI exit 2).
  const cudaRefusal = { error: null, logTail: ['attnscope: the CUDA backend is not available: no NVIDIA driver: libcuda.so.1 could not be loaded; install the NVIDIA driver to use the CUDA backend. Use --backend cpu'] };

  it('name the profile key when the profile asked for CUDA, never the CLI flag', () => {
    const r = refusalOf(cudaRefusal, { ...run.profile, device: { ...run.profile.device, backend: 'cuda' } }, 'auto');
    assert.equal(r.profileKey, 'device.backend');
    assert.equal(r.reason, "the CUDA backend is not available: no NVIDIA driver: libcuda.so.1 could not be loaded; install the NVIDIA driver to use the CUDA backend. The profile's device.backend is cuda: set it to auto (or cpu).");
  });

  it('name the setting when attnscope.backend asked for CUDA (the setting wins over the profile)', () => {
    const r = refusalOf(cudaRefusal, { ...run.profile, device: { ...run.profile.device, backend: 'auto' } }, 'cuda');
    assert.equal(r.setting, 'attnscope.backend');
    assert.match(r.reason, /The setting "attnscope\.backend" asks for cuda: set it to "auto" \(or "cpu"\)\.$/);
    assert.doesNotMatch(r.reason, /--backend/);
    // The setting reaches the CLI as --backend cuda, whose refusal names that flag first: the editor names the setting alone.
    const flagged = { error: null, logTail: [cudaRefusal.logTail[0]!.replace('attnscope: ', 'attnscope: --backend cuda: ')] };
    const f = refusalOf(flagged, { ...run.profile, device: { ...run.profile.device, backend: 'auto' } }, 'cuda');
    assert.equal(f.reason, r.reason);
  });

  it('a missing native part: what is missing and how to build it, without the files tried (those are in the log)', () => {
    // The runner's line with neither build present (native/binding.ts NativeMissingError), two paths each for short.
    const line = 'attnscope: AttnScope has no kernels for this machine: no native addon found: `npm run build:native` builds it (needs g++, make and python3) (tried /x/native/build/Release/attnscope_native.node, /x/build/Release/attnscope_native.node); no WebAssembly module found: `npm run build:wasm` builds it (needs Emscripten: apt-get install emscripten) (tried /x/native/wasm/build/attnscope_wasm.js, /x/wasm/build/attnscope_wasm.js).';
    assert.deepEqual(refusalOf({ error: null, logTail: ['[  0%] measuring this machine', line] }, run.profile, 'auto'), {
      reason: 'AttnScope has no kernels for this machine: no native addon found: `npm run build:native` builds it (needs g++, make and python3); no WebAssembly module found: `npm run build:wasm` builds it (needs Emscripten: apt-get install emscripten).',
    });
  });

  it('an encoder: the editor\'s way to its memory figures (hover, hints, Show memory breakdown), not the CLI command the runner names', () => {
    // core/runnerProcess.ts writes the runner's `error` event as file:line:col: message, and keeps its code; the editor's profile is the runner's stdin.
    const encoder = { error: '<stdin>:1:1: bert is an encoder: it has no KV cache and no causal decode to benchmark; try `attnscope estimate`', errorCode: 'encoder' as const, logTail: [] };
    const bert = { ...run.profile, model: { ...run.profile.model, modelType: 'bert', isEncoder: true } };
    assert.deepEqual(refusalOf(encoder, bert, 'auto'), {
      reason: 'bert is an encoder: it has no KV cache and no causal decode to benchmark; its memory estimate is in the hover and inlay hints of its file, and "AttnScope: Show memory breakdown" draws it',
    });
    // An untagged error (a runner from before the code) is shown as the runner wrote it, less the <stdin> place.
    assert.deepEqual(refusalOf({ ...encoder, errorCode: null }, bert, 'auto'), { reason: 'bert is an encoder: it has no KV cache and no causal decode to benchmark; try `attnscope estimate`' });
  });

  it('a crashed runner: how it ended and its last line that is not progress, nothing about the profile', () => {
    // newcomerB's runner killed 5 s in: the toast listed progress lines; the reason is the signal.
    const killed = { exitCode: null, signal: 'SIGKILL' as const, logTail: ['[  0%] measuring this machine', '[ 12%] flash_fwd B1 N512 … correctness check'] };
    assert.equal(crashMessage('bench', killed, false), 'AttnScope: the benchmark runner failed (killed by SIGKILL), with nothing on stderr.');
    const segv = { exitCode: 1, signal: null, logTail: ['[ 12%] flash_fwd', 'attnscope: internal error: RangeError: Invalid array length', '[ 13%] decode'] };
    assert.equal(crashMessage('simulate', segv, false), 'AttnScope: the simulation runner failed (exit code 1); its last line: internal error: RangeError: Invalid array length.');
  });

  it('a simulation stopped before its end: how it stopped, that nothing is saved, and why (its figures are of the whole workload)', () => {
    // It said "simulation of X cancelled; nothing saved." with no why, and a reload said nothing at all.
    // One sentence, not the 60-word paragraph with the reason (s51 newcomer-ed L1): the dashboard's line for the stopped run gives the reason.
    const why = 'nothing is saved (a simulation is saved only when it ends).';
    assert.equal(simulationStoppedMessage('llama-3.1-8b · e2e.attn.yaml · simulation', 'cancelled'), `AttnScope: llama-3.1-8b · e2e.attn.yaml · simulation was cancelled; ${why}`);
    assert.equal(simulationStoppedMessage('llama-3.1-8b · e2e.attn.yaml · simulation', 'interrupted'), `AttnScope: llama-3.1-8b · e2e.attn.yaml · simulation was interrupted when the window reloaded or closed; ${why}`);
  });

  it('a benchmark cancelled during its pool simulation says where it stopped and that the partial pool is gone', () => {
    // s34 newcomer-ed 2: cancelled at ~2x% of 40,000 requests, the toast said "cancelled after 9 case(s); the partial run is saved".
    const name = 'llama-3.1-8b · long.attn.yaml · full';
    const cases = run.cases.slice(0, 2);
    assert.equal(
      benchCancelledMessage(name, { status: 'cancelled', cases, poolCancelled: { finished: 9123, requests: 40000 } }),
      `AttnScope: benchmark of ${name} cancelled during its pool simulation (at 9,123 of 40,000 requests); the partial pool was not kept; its 2 case(s) are saved.`,
    );
    assert.equal(benchCancelledMessage(name, { status: 'cancelled', cases }), `AttnScope: benchmark of ${name} cancelled after 2 case(s); the partial run is saved.`);
    assert.equal(benchCancelledMessage(name, { status: 'cancelled', cases: [] }), `AttnScope: benchmark of ${name} cancelled before its first case: nothing was measured, nothing is saved in History.`);
  });

  it('the next window\'s toast after a reload stopped a run says what was kept, a benchmark before its first case too', () => {
    // s50 newcomer-ed 1: a Mixtral benchmark reloaded at "0/8 · measuring this machine" left no word at all.
    const name = 'Mixtral-8x7B-v0.1 · Mixtral-8x7B-v0.1.attn.yaml · full';
    assert.equal(interruptedMessage('bench', name, 0, false), `AttnScope: the benchmark of ${name} was interrupted when the window reloaded or closed, before its first case: nothing was measured, nothing is saved.`);
    assert.equal(interruptedMessage('bench', name, 3, false), `AttnScope: the benchmark of ${name} was interrupted when the window reloaded or closed; the 3 case(s) measured before are saved, listed in History as interrupted.`);
    assert.equal(interruptedMessage('bench', name, 8, true), `AttnScope: the benchmark of ${name} finished as the window reloaded or closed; it is saved.`);
    const sim = 'llama-3.1-8b · e2e.attn.yaml · simulation';
    assert.equal(interruptedMessage('simulate', sim, 0, false), simulationStoppedMessage(sim, 'interrupted'));
  });

  it('Compare runs / Export run with too few runs: in an empty window, how to make one, not the editor\'s storage path', () => {
    // s50 newcomer-ed 14: "no saved runs yet in /tmp/nc50-cs/ud/User/globalStorage/attnscope.attnscope/runs".
    assert.equal(noRunsMessage(false, null, ''), "AttnScope: no saved runs yet; open a profile (.attn.yaml) or a model's config.json and run a benchmark or a simulation from its code lens first.");
    assert.equal(noRunsMessage(true, null, ''), "AttnScope: comparing needs two saved runs; open a profile (.attn.yaml) or a model's config.json and run a benchmark or a simulation from its code lens first.");
    assert.equal(noRunsMessage(false, ['.attnscope/runs'], ''), 'AttnScope: no saved runs yet in .attnscope/runs; run a benchmark or a simulation first.');
  });

  it('a run asked for while another runs: names both, and what to do', () => {
    // newcomerB: the qwen3 simulation asked for during a llama benchmark got 'llama-3.1-8b ... is already running.'
    assert.equal(
      busyMessage({ name: 'llama-3.1-8b · llama-3.1-8b.attn.yaml · full', job: 'bench' }, 'simulate', 'qwen3-30b-a3b.attn.json'),
      'AttnScope: the serving simulation of qwen3-30b-a3b.attn.json was not started: the benchmark of llama-3.1-8b · llama-3.1-8b.attn.yaml · full is running (one run at a time). Wait for it to finish, or cancel it and start again.',
    );
    assert.match(busyMessage({ name: 'x', job: 'simulate' }, 'bench', null), /^AttnScope: the benchmark was not started: the serving simulation of x is running/);
  });

  it('a finished simulation: its name once, and a p99 TTFT of hours in hours', () => {
    // A newcomer's toast: "simulation of … · simulation finished: …, p99 TTFT 11,766,444 ms (modelled)".
    // 11,766.444 s / 3,600 = 3.268 h.
    const pool = { ...run.pool!, latency: { ...run.pool!.latency, ttft: { mean: 1, p50: 1, p90: 1, p99: 11_766.444, max: 1 } } } as PoolResult;
    const said = finishedMessage('simulate', 'llama-3.1-8b · e2e.attn.yaml · simulation', { cases: [], pool }, null);
    assert.match(said, /^AttnScope: llama-3\.1-8b · e2e\.attn\.yaml · simulation finished: peak occupancy .*, p99 TTFT 3\.27 h \(modelled\)\.$/);
    assert.equal(finishedMessage('bench', 'x · quick', { cases: run.cases, pool: undefined }, 'W.'), `AttnScope: benchmark of x · quick finished: ${run.cases.length} case(s). W.`);
  });

  it('pass a preflight refusal (an error event placed in the profile) through as it is', () => {
    const error = '/w/p.attn.yaml:4:13: head_dim 1024 exceeds the CPU kernels\' limit 512';
    assert.deepEqual(refusalOf({ error, logTail: [] }, run.profile, 'auto'), { reason: error });
  });
});
