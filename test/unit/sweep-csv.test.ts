/**
 * The Sweep table as CSV (core/sweepCsv.ts sweepToCsv, the dashboard's Export CSV and the CLI's --csv): the run export's conventions
 * (one CSV writer, units and source in the column names: `_modelled` / `_measured`), one row per
 * point with its modelled pool figures and measured decode figures side by side (s49 newcomer-ed 12), a failed
 * point kept, and nothing for a report with no row. Expected text written out by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SweepReport } from '../../core/protocol/sweep';
import { sweepToCsv } from '../../core/sweepCsv';
import { run } from '../fixtures/run';

const report: SweepReport = {
  schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'ab12', name: 'grid.attn.yaml', job: 'both',
  axes: [{ key: 'kv_cache.page_size', values: [16, 32] }, { key: 'model', values: ['./a/config.json', './b,c/config.json'] }],
  total: 4,
  rows: [
    {
      id: 'a16', index: 0, values: { 'kv_cache.page_size': 16, model: './a/config.json' }, label: 'page_size=16 model=./a/config.json', environmentKey: 'e1', status: 'ok', file: 'a16.json',
      metrics: { meanOccupancy: 0.5, throughputTokensPerSec: 7752.5, rejected: 0, p99TtftS: 0.169, decodeNsPerToken: 1200, decodeP10NsPerToken: 1100, decodeP90NsPerToken: 1300, decodeCase: 'B=8 context=4096' },
    },
    { id: 'b32', index: 3, values: { 'kv_cache.page_size': 32, model: './b,c/config.json' }, label: 'page_size=32 model=./b,c/config.json', environmentKey: 'e1', status: 'failed', file: 'b32.json', metrics: {} },
  ],
  missing: [], duplicates: [], environments: { e1: run.environment }, best: { id: 'a16', environmentKey: 'e1', label: 'page_size=16 model=./a/config.json', rule: 'highest output throughput' },
};

describe('sweep CSV export', () => {
  it('one row per point: pool figures modelled and decode figures measured side by side, each header saying which; a failed point with its figures empty', () => {
    const { text, rows } = sweepToCsv(report);
    assert.equal(
      text,
      [
        'point,point_id,kv_cache.page_size,model,environment,machine,build,status,best,occupancy_mean_percent_modelled,output_throughput_tokens_per_s_modelled,ttft_p99_ms_modelled,decode_median_ns_per_token_measured,rejected_requests_modelled,decode_p10_ns_per_token_measured,decode_p90_ns_per_token_measured,decode_case_measured',
        // s31 newcomer-ed 5: the environment in words (the fixture's: AMD EPYC, 2 cores, x64, avx2), not only its key; the best point marked, as the dashboard's ★.
        // s49 newcomer-ed 12: the point's modelled and measured figures on one row (was a row each, `source` modelled / measured).
        // s53: in the table's units (occupancy 0.5 = 50 %, p99 TTFT 0.169 s = 169 ms) and the build on every row (none recorded: unknown).
        'page_size=16 model=./a/config.json,a16,16,./a/config.json,e1,"AMD EPYC (2 cores, x64, avx2)",unknown,ok,best,50,7752.5,169,1200,0,1100,1300,B=8 context=4096',
        // A comma in a value is quoted (RFC 4180), as in the run export.
        '"page_size=32 model=./b,c/config.json",b32,32,"./b,c/config.json",e1,"AMD EPYC (2 cores, x64, avx2)",unknown,failed,,,,,,,,,',
        '',
      ].join('\n'),
    );
    assert.equal(rows, 2);
  });

  // s51: a decode case read from cache (its bytes within the last-level cache, or its pages read alone at more than 1.5x a
  // DRAM read timed with them, s52) times faster than serving's DRAM reads; the CSV names the evidence in decode_from_cache_measured.
  it('decode_from_cache_measured: the enum the row\'s decode case carries, from its run (by size, by read rate)', async () => {
    const { metricsOf } = await import('../../runner/sweep/results');
    // The fixture run's decode case: B=1 ctx=1024, 4,218,880 B (4.02 MiB) <= a 32 MiB L3 (33,554,432 B): 'cache-size'.
    const withL3 = { ...run, environment: { ...run.environment!, lastLevelCache: { level: 3, bytes: 33_554_432 } } };
    assert.equal(metricsOf(withL3).decodeFromCache, 'cache-size');
    // No cache known, its pages read alone at 2.5x a 31.5 GB/s DRAM read timed with them: 'read-rate', with bench's words.
    const rated = { ...run, cases: run.cases.map((c) => (c.kernel === 'paged_decode' ? { ...c, readAloneBytesPerSec: 78_750_000_000, dramReadBytesPerSec: 31_500_000_000 } : c)) };
    assert.equal(metricsOf(rated).decodeFromCache, 'read-rate');
    assert.equal(metricsOf(rated).decodeFromCacheText, 'from cache: its pages read alone came at 2.5x a DRAM read (78.8 GB/s against 31.5 GB/s, one thread each); not a DRAM figure');
    assert.equal(metricsOf(withL3).decodeFromCacheText, 'from cache: reads 4.02 MiB, within the 32 MiB L3; not a DRAM figure');
    assert.equal(metricsOf(run).decodeFromCache, undefined);
    assert.equal(metricsOf(run).decodeFromCacheText, undefined);
    const cached: SweepReport = { ...report, rows: [{ ...report.rows[0]!, metrics: { ...report.rows[0]!.metrics, decodeFromCache: 'read-rate' } }, report.rows[1]!] };
    const lines = sweepToCsv(cached).text.trimEnd().split('\n');
    assert.ok(lines[0]!.endsWith(',decode_case_measured,decode_from_cache_measured'), lines[0]);
    assert.ok(lines[1]!.endsWith(',B=8 context=4096,read-rate'), lines[1]);
    // The words are no CSV column: the enum is.
    const worded: SweepReport = { ...cached, rows: [{ ...cached.rows[0]!, metrics: { ...cached.rows[0]!.metrics, decodeFromCacheText: 'from cache: reads 4.02 MiB, within the 32 MiB L3; not a DRAM figure' } }, cached.rows[1]!] };
    assert.equal(sweepToCsv(worded).text, sweepToCsv(cached).text);
  });

  it('a row tied with the best is marked tied', () => {
    const tied = sweepToCsv({ ...report, best: { ...report.best!, tiedWith: [{ id: 'b32', environmentKey: 'e1', label: 'page_size=32 model=./b,c/config.json' }] } }).text.trimEnd().split('\n');
    assert.match(tied.at(-1)!, /,e1,"AMD EPYC \(2 cores, x64, avx2\)",unknown,failed,tied,/);
  });

  // s37 newcomer-ed 9: the table's "keeps up (modelled)" column, which decides the best point, was not in the CSV.
  it('keeps_up_modelled on each row when the runs judged it, and each row\'s build (s53: on every row, not only when they are two)', () => {
    const judged: SweepReport = { ...report, rows: [{ ...report.rows[0]!, keepsUp: false, tool: 'attnscope 0.1.0+aaaa' }, { ...report.rows[1]!, tool: 'attnscope 0.1.0+bbbb' }] };
    const lines = sweepToCsv(judged).text.trimEnd().split('\n');
    assert.equal(lines[0], 'point,point_id,kv_cache.page_size,model,environment,machine,build,status,best,occupancy_mean_percent_modelled,output_throughput_tokens_per_s_modelled,ttft_p99_ms_modelled,decode_median_ns_per_token_measured,rejected_requests_modelled,decode_p10_ns_per_token_measured,decode_p90_ns_per_token_measured,decode_case_measured,keeps_up_modelled');
    assert.equal(lines[1], 'page_size=16 model=./a/config.json,a16,16,./a/config.json,e1,"AMD EPYC (2 cores, x64, avx2)",0.1.0+aaaa,ok,best,50,7752.5,169,1200,0,1100,1300,B=8 context=4096,false');
    // The failed point (no run judged it): empty.
    assert.match(lines[2]!, /,0\.1\.0\+bbbb,failed,,,,,,,,,,$/);
    assert.equal(lines.length, 3);
  });

  // s41 newcomer-ed F5: pasted into a design doc, the CSV of a simulate sweep named the CPU that ran the simulator (read as the
  // machine measured) and neither the GPU the figures were modelled for nor the SLO they were judged by.
  it('a simulate sweep: no machine column; gpu and the SLO (bounds, attainment target) on each modelled row', () => {
    const sim: SweepReport = {
      ...report, job: 'simulate', axes: [{ key: 'device.gpu', values: ['H100 SXM', { name: 'MI325X' }] }], best: null,
      rows: [
        { id: 'h', index: 0, values: { 'device.gpu': 'H100 SXM' }, label: 'gpu=H100 SXM', environmentKey: 'e1', status: 'ok', file: 'h.json', gpu: 'H100 SXM', metrics: { p99TtftS: 0.448, sloAttainment: 0.994, sloTtftMs: 500, sloAttainmentTarget: 0.99 } },
        // No slo.attainment written: the default, 0.9 (core/protocol/latency.ts SLO_ATTAINMENT_DEFAULT).
        { id: 'm', index: 1, values: { 'device.gpu': { name: 'MI325X' } }, label: 'gpu=MI325X', environmentKey: 'e1', status: 'ok', file: 'm.json', gpu: 'MI325X (user-given)', metrics: { p99TtftS: 0.53, sloAttainment: 0.5, sloTtftMs: 500 } },
      ],
    };
    assert.equal(
      sweepToCsv(sim).text,
      [
        'point,point_id,device.gpu,environment,build,status,best,ttft_p99_ms_modelled,slo_attainment_percent_modelled,gpu,slo_ttft_ms,slo_attainment_target_percent',
        'gpu=H100 SXM,h,H100 SXM,e1,unknown,ok,,448,99.4,H100 SXM,500,99',
        'gpu=MI325X,m,"{""name"":""MI325X""}",e1,unknown,ok,,530,50,MI325X (user-given),500,90',
        '',
      ].join('\n'),
    );
  });

  // s41 newcomer-ed F5 (the rest): no step-time assumptions, no "tp communication not modelled", no per-GPU goodput in the CSV.
  it('each modelled row says its GPUs, its step-time settings with where each comes from, what its step times leave out, and its goodput per GPU', () => {
    // ringEfficiency: NCCL's ring past 4 MiB, H100 SXM NVLink's 0.82 (370 GB/s of 450, NVIDIA/nccl-tests#212).
    const allReduce = { oneShotEfficiency: 0.85, twoShotEfficiency: 0.5, multimemEfficiency: 0.55, ringEfficiency: 0.82, latencyS: 10e-6 };
    const sim: SweepReport = {
      ...report, job: 'simulate', axes: [{ key: 'device.tensor_parallel_size', values: [4, 8] }], best: null,
      rows: [
        {
          id: 't4', index: 0, values: { 'device.tensor_parallel_size': 4 }, label: 'tensor_parallel_size=4', environmentKey: 'e1', status: 'ok', file: 't4.json', gpu: 'H100 SXM',
          // 5.89 requests/s of goodput on 4 GPUs: 1.4725 per GPU (s38 newcomer 3's figures).
          metrics: { gpus: 4, goodputRequestsPerSec: 5.89, goodputPerGpuRequestsPerSec: 1.4725 },
          stepTime: { computeEfficiency: 0.6, memoryEfficiency: 0.8, overheadMs: 0, assumed: ['compute_efficiency', 'memory_efficiency', 'overhead_ms'], allReduce },
          unmodelled: ['FlashInfer\'s all-reduce', 'the logits\' all-gather'],
        },
        {
          id: 't8', index: 1, values: { 'device.tensor_parallel_size': 8 }, label: 'tensor_parallel_size=8', environmentKey: 'e1', status: 'ok', file: 't8.json', gpu: 'H100 SXM',
          metrics: { gpus: 8, goodputRequestsPerSec: 9.32, goodputPerGpuRequestsPerSec: 1.165 },
          // The profile's step_time.all_reduce.latency_us 20: that one the profile's, the efficiencies assumed.
          stepTime: { computeEfficiency: 0.5, memoryEfficiency: 0.8, overheadMs: 1.5, assumed: ['memory_efficiency'], allReduce: { ...allReduce, latencyS: 20 * 1e-6, given: ['latency_us'] } },
        },
      ],
    };
    const from = "assumed (fitted to vLLM PR #24111's H100 SXM timings)";
    assert.equal(
      sweepToCsv(sim).text,
      [
        'point,point_id,device.tensor_parallel_size,environment,build,status,best,goodput_requests_per_s_modelled,goodput_per_gpu_requests_per_s_modelled,gpu,gpus,' +
          'compute_efficiency,compute_efficiency_from,memory_efficiency,memory_efficiency_from,overhead_ms,overhead_ms_from,' +
          'all_reduce_one_shot_efficiency,all_reduce_two_shot_efficiency,all_reduce_multimem_efficiency,all_reduce_ring_efficiency,all_reduce_latency_us,all_reduce_from,unmodelled',
        `tensor_parallel_size=4,t4,4,e1,unknown,ok,,5.89,1.4725,H100 SXM,4,0.6,assumed,0.8,assumed,0,assumed,0.85,0.5,0.55,0.82,10,${from},FlashInfer's all-reduce; the logits' all-gather`,
        `tensor_parallel_size=8,t8,8,e1,unknown,ok,,9.32,1.165,H100 SXM,8,0.5,profile,0.8,assumed,1.5,profile,0.85,0.5,0.55,0.82,20,profile: step_time.all_reduce.latency_us; the rest assumed (fitted to vLLM PR #24111's H100 SXM timings),`,
        '',
      ].join('\n'),
    );
  });

  // s49: NCCL's NVLink SHARP all-reduce past 4 MiB (tp 8 on H100 SXM: 480 GB/s bus bandwidth, NVIDIA/nccl#1455) has its column.
  it('a row whose NCCL band is NVLS says its bus bandwidth in GB/s', () => {
    const allReduce = { oneShotEfficiency: 0.85, twoShotEfficiency: 0.5, multimemEfficiency: 0.55, ringEfficiency: 0.82, nvlsBusBytesPerSec: 480e9, latencyS: 10e-6 };
    const sim: SweepReport = {
      ...report, job: 'simulate', axes: [{ key: 'device.tensor_parallel_size', values: [8] }], total: 1, best: null,
      rows: [{ id: 't8', index: 0, values: { 'device.tensor_parallel_size': 8 }, label: 'tensor_parallel_size=8', environmentKey: 'e1', status: 'ok', file: 't8.json', gpu: 'H100 SXM', metrics: { gpus: 8, goodputRequestsPerSec: 9.32 }, stepTime: { computeEfficiency: 0.6, memoryEfficiency: 0.8, overheadMs: 0, assumed: [], allReduce } }],
    };
    const [header, line] = sweepToCsv(sim).text.split('\n');
    const cells = Object.fromEntries(header!.split(',').map((h, i) => [h, line!.split(',')[i]]));
    assert.equal(cells.all_reduce_nvls_bus_gb_s, '480');
    assert.equal(cells.all_reduce_ring_efficiency, '0.82');
    // A report before s50 carries no NVLS latency: no column.
    assert.equal(header!.split(',').includes('all_reduce_nvls_latency_us'), false);
    // s50: NVLS's own latency a call, µs (56.7e-6 s: 56.7, not 56.699999...).
    const s50: SweepReport = { ...sim, rows: sim.rows.map((r) => ({ ...r, stepTime: { ...r.stepTime!, allReduce: { ...allReduce, nvlsLatencyS: 56.7e-6 } } })) };
    const [h50, l50] = sweepToCsv(s50).text.split('\n');
    const c50 = Object.fromEntries(h50!.split(',').map((h, i) => [h, l50!.split(',')[i]]));
    assert.equal(c50.all_reduce_nvls_latency_us, '56.7');
    assert.ok(h50!.indexOf('all_reduce_nvls_bus_gb_s,all_reduce_nvls_latency_us,all_reduce_latency_us') >= 0, h50);
  });

  it('a priced row: its $ per million output tokens among the figures and the user-given price per GPU-hour beside its GPU', () => {
    // 2.49 $/GPU-hour × 2 GPUs / 3600 / 12,791 tokens/s × 10^6 = 0.10816 $ (the report holds it; the CSV writes it as is).
    const priced: SweepReport = {
      ...report, job: 'max-rate', axes: [{ key: 'device.tensor_parallel_size', values: [2] }], total: 1, best: null,
      rows: [{ id: 'tp2', index: 0, values: { 'device.tensor_parallel_size': 2 }, label: 'tensor_parallel_size=2', environmentKey: 'e1', status: 'ok', file: 'tp2.json', gpu: 'H100 SXM', metrics: { gpus: 2, throughputTokensPerSec: 12791, gpuHourUsd: 2.49, usdPerMillionOutputTokens: 0.10816 } }],
    };
    const [header, line] = sweepToCsv(priced).text.split('\n');
    assert.equal(header, 'point,point_id,device.tensor_parallel_size,environment,build,status,best,usd_per_million_output_tokens_modelled,output_throughput_tokens_per_s_modelled,gpu,gpus,gpu_hour_usd_user_given');
    assert.equal(line, 'tensor_parallel_size=2,tp2,2,e1,unknown,ok,,0.10816,12791,H100 SXM,2,2.49');
  });

  it('a report with no row: no data row (the extension writes nothing and says so)', () => {
    assert.equal(sweepToCsv({ ...report, rows: [] }).rows, 0);
  });
});
