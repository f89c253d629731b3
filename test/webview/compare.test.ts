/** Case-by-case comparison (webview/compare.ts): a change counts only beyond both runs' p10–p90 spread. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KernelCase } from '../../core/protocol/run';
import type { PoolLoad, RunResult } from '../../core/protocol/run';
import { buildDifference, caseLabel, comparePools, compareRuns, runFigure, compareSettings, comparisonRows, keepsUpText, loadBoundNote, loadDifference, modelDifference, sameRun, sloDifference, tpotNoteText, workloadDifference } from '../../webview/compare';
import { formatMs, formatShortRunTime, formatShortRunTimes, tpotOverheadNote } from '../../core/format';
import { run } from '../fixtures/run';
import { comparedRun, compareOptionLabel, runTimeTooltip, figureSortValue, sortRuns } from '../../webview/model';

// The recorded run's prefill case (test/fixtures/run.attn.yaml --quick: B=1, N=512) and decode
// case (B=1, ctx=1024, 16-token pages), with times set here so the thresholds are known.
const prefill = run.cases[0]!;
const decode = run.cases[1]!;

function withTimes(c: KernelCase, median: number, p10: number, p90: number): KernelCase {
  return { ...c, medianNs: median, p10Ns: p10, p90Ns: p90 };
}

describe('compareRuns', () => {
  it('flags a change whose median is outside the other run\'s p10–p90 range, and not one inside it', () => {
    const c0 = withTimes(prefill, 1_000_000, 950_000, 1_050_000);
    const a = { ...run, cases: [c0] };
    // B's median at A's p90: inside A's range, the same.
    const inside = { ...run, cases: [withTimes(c0, 1_050_000, 1_040_000, 1_060_000)] };
    assert.equal(compareRuns(a, inside)[0]!.verdict, 'same');
    // One ns beyond A's p90, and A's median below B's p10: slower.
    const beyond = { ...run, cases: [withTimes(c0, 1_050_001, 1_040_000, 1_060_000)] };
    assert.equal(compareRuns(a, beyond)[0]!.verdict, 'slower');
    // A noisier B: 200,000 ns faster, but A's median lies inside B's own range 600,000–1,000,000.
    const noisyFaster = { ...run, cases: [withTimes(c0, 800_000, 600_000, 1_000_000)] };
    assert.equal(compareRuns(a, noisyFaster)[0]!.verdict, 'same');
    const clearlyFaster = { ...run, cases: [withTimes(c0, 500_000, 490_000, 510_000)] };
    const r = compareRuns(a, clearlyFaster)[0]!;
    assert.equal(r.verdict, 'faster');
    assert.equal(r.relativeChange, -0.5);
  });

  it('matches cases by shape, and reports cases only one run has', () => {
    const b = { ...run, cases: [decode, { ...prefill, shape: { ...prefill.shape, seqLenQ: 8192, seqLenK: 8192 } }] };
    const a = { ...run, cases: [prefill, decode] };
    assert.deepEqual(compareRuns(a, b).map((r) => [r.label, r.verdict]), [
      ['prefill B1 N512', 'only-a'],
      ['decode B1 ctx1024 p16', 'same'],
      ['prefill B1 N8192', 'only-b'],
    ]);
  });

  // s28 newcomer-ed / s29: cases became one GPU's share under TP (8c8b9fd), so a 64-head model at
  // TP 2 times H=32/4, the very shape a 32/4-head model times at TP 1; the key ignored the TP.
  it('keeps a case timed as one GPU\'s share at TP 2 apart from the same shape at TP 1', () => {
    const tp2 = { ...run, cases: [{ ...decode, shape: { ...decode.shape, tensorParallelSize: 2 } }] };
    const tp1 = { ...run, cases: [decode] };
    assert.deepEqual(compareRuns(tp1, tp2).map((r) => [r.label, r.verdict]), [
      ['decode B1 ctx1024 p16', 'only-a'],
      ['decode B1 ctx1024 p16 TP 2', 'only-b'],
    ]);
    assert.deepEqual(compareRuns(tp2, tp2).map((r) => r.verdict), ['same']);
  });

  it('labels decode cases with batch, context and page size', () => {
    assert.equal(caseLabel(decode), 'decode B1 ctx1024 p16');
    // A windowed decode case is labelled as prefill's is (w128), so it is not taken for the full one.
    assert.equal(caseLabel({ ...decode, shape: { ...decode.shape, slidingWindow: 128 } }), 'decode B1 ctx1024 w128 p16');
  });
});

describe('modelDifference', () => {
  it('is null for two runs of one model and names each field two models differ in', () => {
    assert.equal(modelDifference(run, { ...run, cases: [] }), null);
    // The recorded run is Llama-3.1-8B (32 layers, 8 KV heads); a Llama-2-7B-like run: 32 KV heads (MHA).
    const mha = { ...run, profile: { ...run.profile, model: { ...run.profile.model, numKvHeads: 32 } } };
    const why = modelDifference(run, mha);
    assert.match(why ?? '', /different models \(num_key_value_heads 8 vs 32\)/);
    assert.match(modelDifference(run, { ...run, profile: { ...run.profile, dtype: 'fp16' } }) ?? '', /dtype bf16 vs fp16/);
  });
});

describe('loadDifference', () => {
  it('warns when one run was timed above its CPUs\' load and the other not, with both load lines', () => {
    // The fixture: load 1.95 (1 min), 5.34 (5 min) on 2 CPUs: not busy (1.95 <= 2).
    const busy = { ...run, environment: { ...run.environment, loadAverage: [11.46, 10.8, 8.13] as [number, number, number] } };
    assert.equal(
      loadDifference(run, busy),
      'The runs were timed under different load: A at load average 1.95 (1 min), 5.34 (5 min) at the start; B at load average 11.46 (1 min), 10.80 (5 min) at the start (above 2 CPUs: other processes competed, times are longer than on an idle machine). A change below may be the load\'s, not the code\'s or the profile\'s.',
    );
    assert.equal(loadDifference(run, run), null, 'both idle');
    assert.equal(loadDifference(busy, busy), null, 'both busy');
    assert.equal(loadDifference(run, { ...busy, environment: { ...busy.environment, loadAverage: undefined } }), null, 'a side without its load');
    assert.equal(loadDifference(run, { ...busy, cases: [] }), null, 'a side that timed no kernel');
  });
});

describe('buildDifference', () => {
  const env = run.environment;
  it('names the build, SIMD path, threads and CPU two runs differ in, and nothing a side does not know', () => {
    assert.equal(buildDifference(run, { ...run, cases: [] }), null);
    const native = { ...run, environment: { ...env, nativeBuild: 'native' as const } };
    const wasm = { ...run, environment: { ...env, nativeBuild: 'wasm' as const, simd: 'simd128', threads: 1 } };
    // Threads are not named for WebAssembly: one thread is what the build is.
    assert.match(buildDifference(native, wasm) ?? '', /\(build native addon vs WebAssembly, 1 thread, SIMD path avx2 vs simd128\)/);
    assert.match(buildDifference(run, { ...run, environment: { ...env, threads: 16, cpuModel: 'Intel Xeon' } }) ?? '', /\(CPU AMD EPYC vs Intel Xeon, threads 2 vs 16\)/);
    // A run the editor put together (simd '': its runner's machine report never came) and a run without nativeBuild: nothing to hold against.
    assert.equal(buildDifference(native, { ...run, environment: { ...env, simd: '', threads: 64, cpuModel: 'x' } }), null);
    // GPU kernels against CPU kernels.
    const cuda = { ...run, cases: run.cases.map((c) => ({ ...c, backend: 'cuda' as const })), environment: { ...env, gpu: { name: 'NVIDIA H100', smCount: 132, memoryBytes: 80e9, driver: '', runtime: '' } } };
    assert.match(buildDifference(run, cuda) ?? '', /\(backend cpu vs cuda, GPU none vs NVIDIA H100\)/);
  });
});

// s31 newcomer report item 9: Compare said nothing when A and B were one run, or runs of different
// workloads, and set a hybrid pool's blocks (one KV-cache group) beside pages of all layers.
describe('compare: same run, different workloads, pool units', () => {
  it('says when A and B are the same run (one name, one createdAt), not for two runs of one profile', () => {
    assert.match(sameRun(run, { ...run }) ?? '', /^A and B are the same run \(run\.attn\.yaml, saved /);
    assert.equal(sameRun(run, { ...run, createdAt: '2099-01-01T00:00:00.000Z' }), null);
  });

  it('names the workload fields that differ (fixture: 400 requests at 4/s, seed 1)', () => {
    const w = run.profile.workload!;
    assert.equal(workloadDifference(run, { ...run }), null);
    const other = { ...run, profile: { ...run.profile, workload: { ...w, requests: 100, outputLen: { dist: 'fixed' as const, value: 128 } } } };
    assert.equal(
      workloadDifference(run, other),
      'A and B simulate different workloads (requests 400 vs 100, output_len {dist:uniform,min:32,max:512} vs {dist:fixed,value:128}): requests served, latency and throughput below differ by the workload as much as by the profile.',
    );
    const { pool: _pool, ...noPool } = run;
    assert.equal(workloadDifference(run, { ...noPool, profile: other.profile }), null, 'no pool on one side: no workload simulated there');
  });

  it('runs that replayed traces compare by the trace and time scale, not by the profile\'s unused draws (s33 newcomer-cli 2)', () => {
    const w = run.profile.workload!;
    const load = { source: 'trace' as const, timeScale: 1, offeredRequestsPerSec: 4, servedRequestsPerSec: 4, waitingAtLastArrival: 0, overloaded: false };
    const trace = (path: string) => ({ path, resolvedPath: `/w/${path}`, format: 'attnscope', timeUnit: 'arrival_s, seconds', rowsRead: 2, dropped: {} });
    const a = { ...run, pool: { ...run.pool!, load: { ...load, trace: trace('a.jsonl') } } };
    // Same trace, the profiles' (unused) requests differ: one workload.
    const sameTrace = { ...a, profile: { ...run.profile, workload: { ...w, requests: 100 } } };
    assert.equal(workloadDifference(a, sameTrace), null);
    const b = { ...run, pool: { ...run.pool!, load: { ...load, timeScale: 2, trace: trace('b.jsonl') } } };
    assert.equal(
      workloadDifference(a, b),
      'A and B simulate different workloads (requests trace /w/a.jsonl vs trace /w/b.jsonl, time scale 1 vs 2): requests served, latency and throughput below differ by the workload as much as by the profile.',
    );
    // A trace against the profile's draws.
    assert.match(workloadDifference(a, run) ?? '', /\(requests trace \/w\/a\.jsonl vs drawn\)/);
  });

  it('compares pools in tokens; a hybrid pool\'s blocks are named, not set against pages as a change', () => {
    // Fixture pool: 2,048 pages of 16 tokens = 32,768 tokens. B: a hybrid pool of 1,000 blocks
    // holding 8,000 tokens (poolTokens as vLLM counts them: floor(blocks / groups) · page_size).
    const hybrid = { ...run, createdAt: '2099-01-01T00:00:00.000Z', pool: { ...run.pool!, numPages: 1000, poolBlocks: 1000, poolGroups: 2, poolTokens: 8000 } };
    const rows = Object.fromEntries(comparePools(run, hybrid)!.map((r) => [r.label, r]));
    assert.deepEqual([rows['pool tokens']!.a, rows['pool tokens']!.b], ['32,768', '8,000']);
    assert.equal(rows['pool tokens']!.relativeChange, (8000 - 32768) / 32768);
    const notComparable = rows['pool pages / blocks (not comparable)']!;
    assert.deepEqual([notComparable.a, notComparable.b, notComparable.relativeChange, notComparable.change], ['2,048 pages', '1,000 blocks', null, '']);
    assert.equal(rows['pool pages'], undefined);
    // Two page pools: pages compared as pages.
    assert.equal(comparePools(run, { ...run, pool: { ...run.pool!, numPages: 1024 } })!.find((r) => r.label === 'pool pages')!.relativeChange, -0.5);
  });

  // s39 newcomer-ed 3: Llama-3.1-8B on an H100 SXM, tp 1 against tp 2 (and bf16 against fp8 KV), one
  // workload of 400 requests at 20 req/s. The table showed +4.7 % throughput with no row saying B ran on two GPUs.
  const simulation = (tp: number, kvDtype: 'auto' | 'fp8_e4m3', tokensPerS: number, peak: number, load: Partial<PoolLoad>): RunResult => ({
    ...run, kind: 'simulate', cases: [], name: `tp${tp}-${kvDtype}`,
    profile: { ...run.profile, dtype: 'bf16', device: { ...run.profile.device, tensorParallelSize: tp }, kvCache: { ...run.profile.kvCache, dtype: kvDtype } },
    pool: {
      ...run.pool!,
      summary: { ...run.pool!.summary, peakOccupancy: peak },
      latency: { ...run.pool!.latency!, outputTokensPerSec: tokensPerS },
      load: { source: 'workload', timeScale: 1, offeredRequestsPerSec: 19.6, servedRequestsPerSec: 18.7, waitingAtLastArrival: 0, overloaded: false, ...load },
      stepTime: { ...run.pool!.stepTime!, gpu: 'H100 SXM', unmodelled: tp > 1 ? ['the all-reduce between the GPUs'] : [] },
    },
  });

  it('names the settings that differ (GPUs, KV dtype, what the step-time model leaves out) and lists the ones they share', () => {
    const tp1 = simulation(1, 'auto', 2678, 0.11, {});
    const tp2 = simulation(2, 'fp8_e4m3', 2804, 0.024, {});
    const { differ, same } = compareSettings(tp1, tp2);
    assert.deepEqual(differ.map((r) => [r.label, r.a, r.b, r.source]), [
      ['tensor_parallel_size', '1', '2', 'profile'],
      ['GPUs', '1', '2', 'profile'],
      // 'auto' is the profile's dtype, bf16.
      ['kv_cache.dtype', 'auto (bf16)', 'fp8_e4m3', 'profile'],
      ['not modelled', 'nothing named', 'the all-reduce between the GPUs', 'step-time model'],
    ]);
    assert.ok(same.includes(`kv_cache.page_size ${run.profile.kvCache.pageSize}`), same.join(', '));
    assert.ok(same.includes('GPU (step-time peaks) H100 SXM'), same.join(', '));
    assert.deepEqual(compareSettings(tp1, tp1).differ, []);
  });

  it('adds throughput per GPU when the GPU counts differ, and gives a percentage\'s change in percentage points', () => {
    const rows = Object.fromEntries(comparePools(simulation(1, 'auto', 2678, 0.11, {}), simulation(2, 'auto', 2804, 0.024, {}))!.map((r) => [r.label, r]));
    // Hand: 2,804 / 2 GPUs = 1,402 tokens/s a GPU; 1,402 / 2,678 − 1 = −47.6 % (the raw figure read +4.7 %).
    const perGpu = rows['output tokens/s per GPU (modelled)']!;
    assert.deepEqual([perGpu.a, perGpu.b, perGpu.change], ['2,678', '1,402', '-47.6%']);
    assert.equal(rows['output tokens/s (modelled)']!.change, '+4.7%');
    // 11.0 % -> 2.4 %: −8.6 percentage points (it read "−78.2%", a relative change of a percentage).
    assert.equal(rows['peak occupancy']!.change, '-8.6 pp');
    assert.deepEqual([rows['peak occupancy']!.aValue, rows['peak occupancy']!.unit], [11, '%']);
    // One GPU each: no per-GPU row.
    assert.equal(comparePools(run, run)!.some((r) => r.label.includes('per GPU')), false);
  });

  it('counts every data-parallel replica\'s GPUs: tp 1 × dp 2 is 2 GPUs, and its throughput per GPU is half', () => {
    const dp = (n: number, tokensPerS: number): RunResult => {
      const r = simulation(1, 'auto', tokensPerS, 0.11, {});
      return { ...r, profile: { ...r.profile, device: { ...r.profile.device, dataParallelSize: n } } };
    };
    const { differ } = compareSettings(dp(1, 2678), dp(2, 5300));
    assert.deepEqual(differ.map((r) => [r.label, r.a, r.b]), [['data_parallel_size', '1', '2'], ['GPUs', '1', '2']]);
    // Hand: 5,300 / 2 GPUs = 2,650 tokens/s a GPU; 2,650 / 2,678 − 1 = −1.0 %.
    const perGpu = comparePools(dp(1, 2678), dp(2, 5300))!.find((r) => r.label === 'output tokens/s per GPU (modelled)')!;
    assert.deepEqual([perGpu.a, perGpu.b, perGpu.change], ['2,678', '2,650', '-1.0%']);
  });

  it('labels a data-parallel run\'s pool and occupancy per engine with its engine count, the other run\'s bare (s43 newcomer-ed M3)', () => {
    const one = simulation(1, 'auto', 2678, 0.11, {});
    const r = simulation(1, 'auto', 5300, 0.11, {});
    const dp2: RunResult = { ...r, profile: { ...r.profile, device: { ...r.profile.device, dataParallelSize: 2 } }, pool: { ...r.pool!, dataParallel: { size: 2, replicas: [] } as unknown as NonNullable<NonNullable<RunResult['pool']>['dataParallel']> } };
    const rows = Object.fromEntries(comparePools(one, dp2)!.map((x) => [x.label, x]));
    for (const label of ['pool tokens', 'pool pages', 'peak occupancy', 'mean occupancy']) {
      assert.ok(rows[label]!.b.endsWith(' per engine (2 engines)'), `${label}: ${rows[label]!.b}`);
      assert.ok(!rows[label]!.a.includes('engine'), `${label}: ${rows[label]!.a}`);
    }
    // The figure itself unchanged: one engine's pool, as the run's PoolResult holds it.
    assert.equal(rows['pool tokens']!.bValue, rows['pool tokens']!.aValue);
    assert.equal(rows['preemptions']!.b.includes('engine'), false);
  });

  it('says whether each run kept up with its offered load, by the Sweep tab\'s check where the run judged it', () => {
    const judged = simulation(1, 'auto', 100, 0.5, { keepsUp: false, saturatedRequestsPerSec: 8, offeredRequestsPerSec: 8.2 });
    const profile = { ...judged.profile, workload: { ...judged.profile.workload!, arrivalRate: 8.2 } };
    // core/format keepsUpOf's wording, as the Sweep tab's rows (test/unit/sweep-keepsup.test.ts).
    assert.equal(keepsUpText({ ...judged, profile }), 'no: 8.20 requests/s offered, above the saturated throughput μ = 8.00 requests/s'); // three significant figures, as every rate (9bb67b12)
    assert.equal(keepsUpText(simulation(1, 'auto', 100, 0.5, { keepsUp: true, saturatedRequestsPerSec: 30 })), 'yes');
    const steady = simulation(1, 'auto', 2678, 0.11, {});
    assert.equal(keepsUpText(steady), 'yes, its queue did not grow (μ not measured)');
    const grown = simulation(2, 'auto', 2804, 0.5, { overloaded: true, waitingAtLastArrival: 120 });
    assert.equal(keepsUpText(grown), 'no: its queue grew through the arrivals (120 requests waiting at the last arrival)');
    // Both kept up: their throughput is the arrivals', said once; not when one fell behind.
    assert.match(loadBoundNote(steady, simulation(2, 'auto', 2804, 0.024, {})) ?? '', /^Both runs kept up with their offered load/);
    assert.equal(loadBoundNote(steady, grown), null);
  });

  it('exports the settings that differ, then the pool figures, each with its unit and source', () => {
    const rows = comparisonRows(simulation(1, 'auto', 2678, 0.11, {}), simulation(2, 'auto', 2804, 0.024, {}));
    assert.deepEqual(rows.slice(0, 3).map((r) => r.label), ['tensor_parallel_size', 'GPUs', 'not modelled']);
    const ttft = rows.find((r) => r.label === 'TTFT p99 (modelled)')!;
    // Seconds in the run, milliseconds in the export's unit.
    assert.deepEqual([ttft.aValue, ttft.unit, ttft.source], [run.pool!.latency!.ttft!.p99 * 1000, 'ms', 'modelled (step-time model)']);
    // Two benchmarks: their kernel cases, measured, in ns.
    const cases = comparisonRows(run, run).filter((r) => r.source === 'measured');
    assert.deepEqual(cases.map((r) => [r.aValue, r.unit]), run.cases.map((c) => [c.medianNs, 'ns (median)']));
  });

  it('exports what is the same in both too: the GPU, the efficiencies and whether assumed, the SLO the goodput was judged by (s40 newcomer-ed F3)', () => {
    const a = simulation(1, 'auto', 2678, 0.11, {});
    const withSlo = (r: RunResult, tpotMs: number): RunResult => ({ ...r, pool: { ...r.pool!, latency: { ...r.pool!.latency!, slo: { ttftMs: 100, tpotMs } } } });
    const rows = comparisonRows(withSlo(a, 10), withSlo(simulation(2, 'auto', 2804, 0.024, {}), 20));
    const at = (label: string) => rows.find((r) => r.label === label);
    // test/fixtures/run.ts's step-time model: efficiencies 0.6 / 0.8, both assumed (not in the profile).
    assert.deepEqual([at('GPU (step-time peaks)')?.a, at('GPU (step-time peaks)')?.b], ['H100 SXM', 'H100 SXM']);
    assert.deepEqual([at('compute efficiency')?.a, at('memory efficiency')?.a], ['0.6 (assumed)', '0.8 (assumed)']);
    assert.deepEqual([at('SLO TTFT')?.a, at('SLO TTFT')?.b], ['100 ms', '100 ms']);
    // A bound that differs is a setting that differs: among the first rows, before the shared ones.
    const tpot = rows.findIndex((r) => r.label === 'SLO TPOT');
    assert.deepEqual([rows[tpot]!.a, rows[tpot]!.b], ['10 ms', '20 ms']);
    assert.ok(tpot < rows.findIndex((r) => r.label === 'GPU (step-time peaks)'));
    // The page's "Same in both" line names the shared SLO bound too.
    assert.ok(compareSettings(withSlo(a, 10), withSlo(a, 10)).same.includes('SLO TTFT 100 ms'));
  });

  it('carries the step-time GPU\'s figures and their origin: an H100 SXM against an H200 says what each was modelled with (s41 newcomer-ed F5 c)', () => {
    // NVIDIA datasheets: H100 SXM HBM3 3.35 TB/s, H200 HBM3e 4.8 TB/s; both BF16 1,979 TFLOPS with sparsity (989 dense), NVLink 900 GB/s both directions.
    const figures = (bandwidth: number, doc: string) => ({ memoryBytesPerSec: bandwidth, memoryOrigin: 'datasheet' as const, computeFlopsPerSec: 989e12, computePeak: 'bf16 peak', computeOrigin: 'datasheet' as const, interconnect: 'NVLink', interconnectBytesPerSec: 450e9, interconnectOrigin: 'datasheet' as const, source: doc, interconnectSource: doc });
    const on = (gpu: string, f: ReturnType<typeof figures> | undefined): RunResult => {
      const r = simulation(8, 'auto', 2678, 0.11, {});
      return { ...r, pool: { ...r.pool!, stepTime: { ...r.pool!.stepTime!, gpu, ...(f ? { gpuFigures: f } : {}) } } };
    };
    const h100 = on('H100 SXM', figures(3.35e12, 'NVIDIA H100 Tensor Core GPU datasheet'));
    const h200 = on('H200', figures(4.8e12, 'NVIDIA H200 Tensor Core GPU datasheet'));
    const rows = comparisonRows(h100, h200);
    const at = (label: string) => rows.find((r) => r.label === label)!;
    // 4.8 / 3.35 − 1 = +43.3 %, in TB/s in the export.
    assert.deepEqual([at('GPU memory bandwidth').a, at('GPU memory bandwidth').b, at('GPU memory bandwidth').change, at('GPU memory bandwidth').bValue], ['3.35 TB/s (datasheet)', '4.8 TB/s (datasheet)', '+43.3%', 4.8]);
    assert.deepEqual([at('GPU compute peak').a, at('GPU compute peak').aValue], ['bf16 989 TFLOP/s (datasheet)', 989]);
    assert.deepEqual([at('GPU interconnect').b, at('GPU interconnect').bValue], ['NVLink 450 GB/s a direction (datasheet)', 450]);
    assert.match(at('GPU figures from').b, /^NVIDIA H200 Tensor Core GPU datasheet/);
    // The bandwidth differs: among the first rows; the shared peak on the page's "Same in both" line, the sources only in the export.
    const { differ, same } = compareSettings(h100, h200);
    assert.ok(differ.some((r) => r.label === 'GPU memory bandwidth'));
    assert.ok(same.includes('GPU compute peak bf16 989 TFLOP/s (datasheet)'), same.join('; '));
    assert.ok(!same.some((t) => t.startsWith('GPU figures from')));
    // A run saved before the figures were recorded: n/a, no change.
    const old = comparisonRows(on('H100 SXM', undefined), h200).find((r) => r.label === 'GPU memory bandwidth')!;
    assert.deepEqual([old.a, old.change], ['n/a', '']);
  });

  it('names a compared run in its exports as History lists it, with the settings that tell it from a run of the same name', () => {
    const listed = [{ id: 'x', name: `${run.name} · gpu H200`, createdAt: run.createdAt, status: 'ok' as const, cases: 0 }];
    assert.equal(comparedRun(run, 'x', listed).name, `${run.name} · gpu H200`);
    // Not listed (the history folder moved): the run's own name.
    assert.equal(comparedRun(run, 'y', listed).name, run.name);
  });

  it('carries the SLO attainment asked, the share meeting it and the verdict (s41 newcomer-ed F5: a pasted comparison had the bounds alone)', () => {
    // H100 tp 8: 99.4% meet p99 TTFT 500 ms; tp 4: 97.4%; slo.attainment 0.99: met, not met.
    const judged = (r: RunResult, share: number): RunResult => ({ ...r, pool: { ...r.pool!, latency: { ...r.pool!.latency!, slo: { ttftMs: 500, attainment: 0.99 }, sloAttainment: share, goodputRequestsPerSec: 1 } } });
    const rows = comparisonRows(judged(simulation(1, 'auto', 2678, 0.11, {}), 0.994), judged(simulation(2, 'auto', 2804, 0.024, {}), 0.974));
    const at = (label: string) => rows.find((r) => r.label === label)!;
    assert.deepEqual([at('SLO attainment').a, at('SLO attainment').b, at('SLO attainment').source], ['99%', '99%', 'profile slo.attainment (or --slo-attainment)']);
    assert.deepEqual([at('requests meeting the SLO (modelled)').a, at('requests meeting the SLO (modelled)').b], ['99.4%', '97.4%']);
    // 400 requests (test/fixtures/run.ts) against 99 %: 4 expected outside it, under the 10 a verdict needs (1,000 requests; s42 newcomer-ed F14).
    const few = ', but on 400 requests only: a 99% target needs 1,000 to leave 10 outside it';
    assert.deepEqual([at('SLO met').a, at('SLO met').b], [`the SLO asks 99%: met${few}`, `the SLO asks 99%: not met${few}`]);
    // The workload simulated, as the profile wrote it (test/fixtures/run.ts), in the exported rows; not on the page's "Same in both" line.
    assert.deepEqual([at('workload.requests').a, at('workload.arrival_rate').a, at('workload.prompt_len').a, at('workload.max_model_len').a, at('workload.prompt_len').source], ['400', '4', '{dist:lognormal,median:512,sigma:1,max:4096}', '8192', 'profile workload']);
    // No slo.attainment (what New profile… writes): judged at the default 90 % as everywhere else, said so (s42 newcomer-ed F8: "none", "no attainment asked").
    // 94.0 % >= 90 %: met; 2.8 % (the overloaded tp 2 run): not met.
    const unset = (r: RunResult, share: number): RunResult => ({ ...r, pool: { ...r.pool!, latency: { ...r.pool!.latency!, slo: { ttftMs: 1000, tpotMs: 100 }, sloAttainment: share, goodputRequestsPerSec: 1 } } });
    const byDefault = comparisonRows(unset(simulation(1, 'auto', 2678, 0.11, {}), 0.94), unset(simulation(2, 'auto', 2804, 0.024, {}), 0.028));
    const atD = (label: string) => byDefault.find((r) => r.label === label)!;
    assert.deepEqual([atD('SLO attainment').a, atD('SLO attainment').b], ['90% (default)', '90% (default)']);
    assert.deepEqual([atD('SLO met').a, atD('SLO met').b], ['the SLO asks 90% (slo.attainment unset: the default 0.9): met', 'the SLO asks 90% (slo.attainment unset: the default 0.9): not met']);
    // Two SLOs (s42 newcomer-ed F13): TTFT 1 s + TPOT 100 ms at the default 90 % against TTFT 500 ms alone at 99 %: a banner naming each difference; one SLO: none.
    assert.equal(sloDifference(unset(run, 1), judged(run, 1)), 'A and B judge different SLOs (TTFT 1 s vs 500 ms, TPOT 100 ms vs none, attainment 90% (default) vs 99%): goodput, the requests meeting the SLO and its verdict below are counted under two definitions and do not compare.');
    assert.equal(sloDifference(judged(run, 0.9), judged(run, 0.5)), null);
    const same = compareSettings(judged(run, 0.9), judged(run, 0.9));
    assert.ok(same.sameRows.some((r) => r.label === 'workload.requests'));
    assert.ok(!same.same.some((t) => t.startsWith('workload.')), same.same.join('; '));
    // The banner and the rows say each SLO in one wording: TTFT 1 s, TPOT none, attainment 90% (default).
    const settings = compareSettings(unset(run, 1), judged(run, 1)).differ;
    assert.deepEqual(['SLO TTFT', 'SLO TPOT', 'SLO attainment'].map((l) => settings.find((r) => r.label === l)).map((r) => [r?.a, r?.b]), [['1 s', '500 ms'], ['100 ms', 'none'], ['90% (default)', '99%']]);
  });

  it('shows the TPOT overhead note the CLI, the Run tab and a sweep\'s best line show, for the run that carries it (s43: Compare had none)', () => {
    // The fixture's pool: step_time.overhead_ms assumed 0 (perStepS 0), 7.39 running sequences on
    // average (at most 8: small batch). With a TPOT bound of 100 ms the note applies (core/format tpotOverheadNote).
    const withTpot = (r: RunResult, overheadS: number): RunResult => ({
      ...r,
      pool: {
        ...r.pool!,
        latency: { ...r.pool!.latency!, slo: { ttftMs: 1000, tpotMs: 100 }, sloAttainment: 1, goodputRequestsPerSec: 1 },
        stepTime: { ...r.pool!.stepTime!, perStepS: overheadS, assumed: overheadS > 0 ? ['compute_efficiency', 'memory_efficiency'] : ['compute_efficiency', 'memory_efficiency', 'overhead_ms'] },
      },
    });
    const assumed = withTpot(run, 0);
    const calibrated = withTpot(run, 0.004);
    const note = 'TPOT <= 100 ms is judged on steps of 7.39 running sequences on average with no per-step overhead (step_time.overhead_ms assumed 0)';
    const both = tpotNoteText(assumed, assumed)!;
    assert.ok(both.startsWith(`A and B: ${note}: at small batch`), both);
    // The same text as the CLI's "Note: " line (runner/simulate/summary.ts prints tpotOverheadNote).
    assert.equal(both, `A and B: ${tpotOverheadNote(assumed.pool!)}.`);
    // Only B assumed 0: said of B alone; neither (overhead_ms 4 ms given, or no TPOT bound): nothing.
    assert.ok(tpotNoteText(calibrated, assumed)!.startsWith(`B: ${note}`));
    assert.ok(tpotNoteText(assumed, calibrated)!.startsWith(`A: ${note}`));
    assert.equal(tpotNoteText(calibrated, calibrated), null);
    assert.equal(tpotNoteText(run, run), null);
  });
});

describe('Compare pickers (s48 newcomer-ed 5)', () => {
  // s52 newcomer-ed 3: at 1280 px the picker cut "Dec 6, 2026, 11:27:51 PM · simulation · llama-3.1-8b · l…", the profile file
  // (what differs between runs of one model) never shown; s48: the whole name first cut it too ("llama-3.1-8b · llama-3.1-8b.attn.ya…").
  it('list each run by its profile file and figure first, then time, kind, origin, the model and build', () => {
    const name = 'llama-3.1-8b · tp2.attn.yaml · simulation';
    const at = '2026-12-06T10:20:00.000Z';
    assert.equal(compareOptionLabel({ createdAt: at, kind: 'simulate', figure: 'TTFT p99 312 ms', origin: 'cli' }, name), `tp2.attn.yaml · simulation · TTFT p99 312 ms · ${formatShortRunTime(at)} · simulation · CLI · llama-3.1-8b`);
    // A run saved before RunResult.kind is a benchmark; its build last; no origin or figure known: none said.
    assert.equal(compareOptionLabel({ createdAt: at, build: 'avx2 · 2 threads' }, 'llama-3.1-8b · a.attn.yaml · full'), `a.attn.yaml · full · ${formatShortRunTime(at)} · benchmark · llama-3.1-8b · avx2 · 2 threads`);
    // A CLI run named by its bare file: that name first.
    assert.equal(compareOptionLabel({ createdAt: at, kind: 'simulate', origin: 'editor' }, 'x.attn.yaml', 'T'), 'x.attn.yaml · T · simulation · editor');
  });

  it('give each run a figure that tells it from runs of its profile: TTFT p99, the rate kept up, the longest case', () => {
    // The fixture's pool: TTFT p99 in seconds, written as formatMs writes it.
    const p99 = run.pool!.latency!.ttft!.p99;
    assert.equal(runFigure({ ...run, kind: 'simulate' }), `TTFT p99 ${formatMs(p99 * 1e3)}`);
    // --max-rate: the rate that kept the SLO, 3 significant digits (4.2 -> "4.20").
    const capacity = { kind: 'modelled' as const, slo: {}, attainmentTarget: 0.99, tolerance: 0.05, points: [], maxRate: 4.2, maxScale: null };
    assert.equal(runFigure({ ...run, kind: 'simulate', pool: { ...run.pool!, capacity } as typeof run.pool }), 'kept up 4.20 req/s');
    assert.equal(runFigure({ ...run, kind: 'simulate', pool: undefined }), undefined);
    // A benchmark: its longest case by median, here the decode case set to 2 ms beside a 1 ms prefill.
    const cases = [withTimes(prefill, 1e6, 9e5, 1.1e6), withTimes(decode, 2e6, 1.9e6, 2.1e6)];
    assert.equal(runFigure({ kind: 'bench', cases }), `${caseLabel(decode)} 2 ms`);
    assert.equal(runFigure({ kind: 'bench', cases: [] }), undefined);
  });

  // s51: the pickers read "Dec 6, 2026, 10:20:00 AM" where History's lists read "Dec 6, 10:20 AM".
  it('write the time as History does, to the minute and without the year, the whole time in the option\'s description', () => {
    const at = '2026-12-06T10:20:35.000Z';
    const label = compareOptionLabel({ createdAt: at, kind: 'simulate' }, 'x.attn.yaml');
    assert.doesNotMatch(label, /2026|:35/, label);
    assert.ok(label.startsWith(`x.attn.yaml · ${formatShortRunTime(at)} · `), label);
    // The year and the seconds where History's time cell has them (its tooltip), then the ISO value.
    assert.match(runTimeTooltip(at), /2026.*35.* \(2026-12-06T10:20:35\.000Z\)$/);
  });
});

// s52 newcomer-ed 3: ten History rows read "Dec 6, 11:26 PM"; a minute two runs share gets its seconds.
describe('formatShortRunTimes', () => {
  it('writes the seconds only for times whose minute another shares', () => {
    const t = formatShortRunTimes(['2026-12-06T23:26:05.000Z', '2026-12-06T23:26:40.000Z', '2026-12-06T23:27:10.000Z'], 'en-US', 'UTC');
    assert.deepEqual(t, ['Dec 6, 11:26:05 PM', 'Dec 6, 11:26:40 PM', 'Dec 6, 11:27 PM']);
  });
});

// s52 Left 2: History's figure column sorted as text put "TTFT p99 1.20 s" before "TTFT p99 312 ms".
describe('History sorted by figure (figureSortValue, sortRuns)', () => {
  it('reads a figure as what it is of and its value in seconds or req/s; sorts by those, ties and old runs as History lists them', () => {
    assert.deepEqual(figureSortValue('TTFT p99 312 ms'), { of: 'TTFT p99', value: 0.312 });
    assert.deepEqual(figureSortValue('TTFT p99 1.20 s'), { of: 'TTFT p99', value: 1.2 });
    assert.deepEqual(figureSortValue('kept up 4.20 req/s'), { of: 'kept up', value: 4.2 });
    // 1.23 µs is 1.23e-6 s; a thousands separator read as one.
    assert.ok(Math.abs(figureSortValue('decode B8 ctx4096 1.23 µs').value - 1.23e-6) < 1e-15);
    assert.equal(figureSortValue('prefill B1 N512 1,234 ms').value, 1.234);
    assert.ok(Number.isNaN(figureSortValue('no unit here').value));
    const runs = [
      { id: 'a', createdAt: '2026-12-06T14:30:00.000Z', figure: 'TTFT p99 1.20 s', kind: 'simulate' as const },
      { id: 'b', createdAt: '2026-12-06T14:20:00.000Z' },
      { id: 'c', createdAt: '2026-12-06T14:10:00.000Z', figure: 'TTFT p99 312 ms', kind: 'simulate' as const },
      { id: 'd', createdAt: '2026-12-06T14:00:00.000Z', figure: 'TTFT p99 312 ms', kind: 'simulate' as const },
    ];
    const ids = (by: Parameters<typeof sortRuns>[1]): string => sortRuns(runs, by, (r) => r.id).map((r) => r.id).join('');
    // c and d tie (newest first), then a; b has no figure: last both ways.
    assert.equal(ids({ key: 'figure', dir: 'ascending' }), 'cdab');
    assert.equal(ids({ key: 'figure', dir: 'descending' }), 'acdb');
    // b has no kind: a benchmark, before the simulations.
    assert.equal(ids({ key: 'kind', dir: 'ascending' }), 'bacd');
    assert.equal(ids({ key: 'time', dir: 'ascending' }), 'dcba');
    assert.equal(ids({ key: 'time', dir: 'descending' }), 'abcd');
  });
});
