import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { profileFromModelConfig, readProfile, type Profile } from '../../core/config/index';
import { checkProfile, estimate } from '../../core/estimate/index';
import { deviceGpu, gpuByName, GPUS, hostLinkBytesPerSec, quantizedGemmPeak, userGpu, type GpuSpec } from '../../core/estimate/gpus';
import { ALL_REDUCE_EFFICIENCY, allReduceWork, stepTimeModel } from '../../runner/simulate/step-time';
import { fixtureText, loadModel } from './helpers';
import schema from '../../schemas/attn-profile.schema.json';

const GiB = 1024 ** 3;

function row(name: string): GpuSpec {
  const g = gpuByName(name);
  assert.ok(g, name);
  return g;
}

function llamaOn(gpu: string, memoryGib: number | null = null): Profile {
  const p = profileFromModelConfig(loadModel('Llama-3.1-8B'), null);
  p.device = { ...p.device, gpu, memoryGib };
  return p;
}

test('the added rows carry their datasheets\' dense peaks: half the with-sparsity figures the vendors print', () => {
  // NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column: BF16 1,513 TFLOPS*, FP8 3,026*, INT8
  // 3,026 TOPS*, FP32 51, HBM2e 2TB/s (* with sparsity); H100 NVL column: BF16 1,671*, FP8 3,341*,
  // FP32 60, HBM3 3.9TB/s, 94GB.
  assert.deepEqual([row('H100 PCIe').bf16FlopsPerSec, row('H100 PCIe').fp8FlopsPerSec, row('H100 PCIe').int8OpsPerSec, row('H100 PCIe').fp32FlopsPerSec, row('H100 PCIe').memoryBytesPerSec], [1513e12 / 2, 3026e12 / 2, 3026e12 / 2, 51e12, 2e12]);
  assert.deepEqual([row('H100 NVL').bf16FlopsPerSec, row('H100 NVL').fp8FlopsPerSec, row('H100 NVL').fp32FlopsPerSec, row('H100 NVL').memoryBytesPerSec, row('H100 NVL').memoryBytes], [1671e12 / 2, 3341e12 / 2, 60e12, 3.9e12, 94e9]);
  // NVIDIA HGX B200 (8 GPUs): FP16/BF16 36 PFLOPS*, FP8 72 PFLOPS*, FP32 600 TFLOPS, 1,440 GB at 64 TB/s.
  assert.deepEqual([row('B200').bf16FlopsPerSec, row('B200').fp8FlopsPerSec, row('B200').fp32FlopsPerSec, row('B200').memoryBytesPerSec, row('B200').memoryBytes], [36e15 / 8 / 2, 72e15 / 8 / 2, 600e12 / 8, 64e12 / 8, 1440e9 / 8]);
  // NVIDIA L4 datasheet: BF16 242 TFLOPS*, FP8 485*, INT8 485 TOPS*, FP32 30.3, GDDR6 300GB/s, 24GB, PCIe Gen4.
  assert.deepEqual([row('L4').bf16FlopsPerSec, row('L4').fp8FlopsPerSec, row('L4').int8OpsPerSec, row('L4').fp32FlopsPerSec, row('L4').memoryBytesPerSec, row('L4').pcieGen], [121e12, 485e12 / 2, 485e12 / 2, 30.3e12, 300e9, 4]);
  // AMD Instinct MI300X data sheet: bfloat16 1,307.4 TFLOPs dense, FP8 2,614.9, INT8 2,614.9 TOPs,
  // FP32 vector 163.4, 192 GB HBM3 at 5.3 TB/s, PCIe Gen 5 x16.
  assert.deepEqual([row('MI300X').bf16FlopsPerSec, row('MI300X').fp8FlopsPerSec, row('MI300X').int8OpsPerSec, row('MI300X').fp32FlopsPerSec, row('MI300X').memoryBytesPerSec, row('MI300X').pcieGen, row('MI300X').platform], [1307.4e12, 2614.9e12, 2614.9e12, 163.4e12, 5.3e12, 5, 'rocm']);
  // H20: no NVIDIA datasheet; its resellers' sheets: BF16 148 TFLOPS, FP8 296, FP32 44, 96 GB HBM3 at 4.0 TB/s. The row says where they come from.
  assert.deepEqual([row('H20').bf16FlopsPerSec, row('H20').fp8FlopsPerSec, row('H20').fp32FlopsPerSec, row('H20').memoryBytesPerSec], [148e12, 296e12, 44e12, 4e12]);
  assert.match(row('H20').source, /no datasheet on nvidia\.com/);
  // Interconnect per GPU and direction (datasheets print both directions together): HGX B200 NVSwitch
  // GPU-to-GPU 1.8TB/s, HGX H20 NVLink 900GB/s, MI300X 7 Infinity Fabric links · 128 GB/s = 896 GB/s,
  // L4 and H100 PCIe on PCIe (Gen4 x16 64GB/s, Gen5 128GB/s), H100 NVL bridged pairs 600GB/s.
  assert.deepEqual(['B200', 'H20', 'MI300X', 'L4', 'H100 PCIe', 'H100 NVL'].map((n) => [row(n).interconnect, row(n).interconnectBytesPerSec]),
    [['NVLink', 1.8e12 / 2], ['NVLink', 900e9 / 2], ['Infinity Fabric', (7 * 128e9) / 2], ['PCIe', 64e9 / 2], ['PCIe', 128e9 / 2], ['NVLink', 600e9 / 2]]);
  // An fp8 W8A8 checkpoint on the MI300X runs at its fp8 peak (it has fp8 matrix cores: no weight-only fallback).
  assert.equal(quantizedGemmPeak(row('MI300X'), 'fp8').peak?.flopsPerSec, 2614.9e12);
});

test('a card\'s device memory: a logged total where a public log was found, else derived and said to be', () => {
  // Logged: B200 "Total Global Memory: 178.35 GB" (pytorch/ao#4002's device query), H100 NVL
  // "total capacity of 93.00 GiB" (ali-vilab/VACE#56), MI300X "total capacity of 191.98 GiB" (vllm#7951);
  // L4: CUDA deviceQuery "22478 MBytes (23570219008 bytes)" (thamada/nvidia-smi gls/L4_deviceQuery.py),
  // 23,570,219,008 / 2^30 = 21.951 GiB, 21.95 as vLLM prints it; H20: PyTorch's device query
  // "total_memory=97285MB" (alipay/PainlessInferenceAcceleration flood/flood/ops/seg_attn.py), whole MiB
  // rounded down, 97,285 / 1024 = 95.0049 GiB, the total in [95.0049, 95.0059): 95.005.
  // H100 PCIe: OpenXLA's device config (xla/backends/gpu/target_config/specs/h100_pcie.txtpb) "device_memory_size:
  // 84942979072", the driver's total, 84,942,979,072 / 2^30 = 79.1093 GiB, 79.11 (s48: it was derived, 80 · 0.99 = 79.2).
  for (const [gpu, gib] of [['B200', 178.35], ['H100 NVL', 93], ['MI300X', 191.98], ['L4', 21.95], ['H20', 95.005], ['H100 PCIe', 79.11]] as const) {
    const e = estimate(llamaOn(gpu));
    assert.equal(e.pool.deviceMemoryBytes, Math.floor(gib * GiB), gpu);
    assert.equal(e.pool.deviceSource, `device.gpu ${gpu}, ${gib} GiB as CUDA reports it`);
  }
  assert.ok(Math.abs(23570219008 / GiB - row('L4').cudaMemoryGib) < 0.005, 'L4: the deviceQuery bytes, to vLLM\'s two decimals');
  assert.ok(row('H20').cudaMemoryGib >= 97285 / 1024 && row('H20').cudaMemoryGib < 97286 / 1024, 'H20: inside the printed MiB');
  assert.match(row('L4').memorySource, /thamada\/nvidia-smi.*\(23570219008 bytes\)/);
  assert.match(row('H20').memorySource, /PainlessInferenceAcceleration.*total_memory=97285MB/);
  assert.ok(Math.abs(84942979072 / GiB - row('H100 PCIe').cudaMemoryGib) < 0.005, 'H100 PCIe: the device config\'s bytes, to two decimals');
  assert.match(row('H100 PCIe').memorySource, /openxla\/xla.*h100_pcie\.txtpb: "device_memory_size: 84942979072"/);
  // Llama-3.1-8B bf16 (gpu_memory_utilization 0.9): the L4's pool, 2,264 pages on the derived 22.07 GiB, is 2,209 on
  // the logged 21.95; the H20's, 35,301 on the derived 95.04, is 35,285 on 95.005.
  assert.deepEqual([estimate(llamaOn('L4')).pool.pages, estimate(llamaOn('H20')).pool.pages], [2209, 35285]);
  // Every row cites a logged total to two decimals and where it was seen (no derived row since s48, when
  // the H100 PCIe's total was found: a card with no public log is not added).
  for (const g of GPUS) assert.match(g.memorySource, /\d+\.\d\d\d? ?GiB/, g.name);
});

test('memory_gib above a card\'s logged total warns, within the drivers\' 0.5 % it does not', () => {
  // H100 PCIe, logged since s48: 79.11 · 1.005 = 79.51 (it was derived, bounded by its 80 GB board alone: 79.9 passed).
  assert.ok(!checkProfile(llamaOn('H100 PCIe', 79.5), estimate(llamaOn('H100 PCIe', 79.5))).some((x) => x.code === 'memory-exceeds-gpu'));
  const over = llamaOn('H100 PCIe', 79.9);
  const found = checkProfile(over, estimate(over)).filter((x) => x.code === 'memory-exceeds-gpu');
  assert.equal(found.length, 1);
  assert.match(found[0]!.message, /more than the H100 PCIe has \(CUDA reports 79\.11 GiB of its 80 GB, vLLM's total_gpu_memory, ±0\.5 % between drivers\): .*at most 79\.11,/);
  // A logged row keeps the 0.5 % drivers' spread: B200 178.35 · 1.005 = 179.24; H20, logged now, 95.005 · 1.005 = 95.48.
  assert.ok(checkProfile(llamaOn('B200', 179.5), estimate(llamaOn('B200', 179.5))).some((x) => x.code === 'memory-exceeds-gpu'));
  assert.ok(checkProfile(llamaOn('H20', 95.9), estimate(llamaOn('H20', 95.9))).some((x) => x.code === 'memory-exceeds-gpu'));
  assert.ok(!checkProfile(llamaOn('H20', 95.4), estimate(llamaOn('H20', 95.4))).some((x) => x.code === 'memory-exceeds-gpu'));
});

test('the profile schema lists every row in table order, each description with its bandwidth and memory, none "derived"', () => {
  const gpu = schema.properties.device.properties.gpu.anyOf[0] as { enum: string[]; enumDescriptions: string[] };
  assert.deepEqual(gpu.enum, GPUS.map((g) => g.name));
  GPUS.forEach((g, i) => {
    const d: string = gpu.enumDescriptions[i];
    assert.ok(d.includes(`${g.cudaMemoryGib} GiB`), `${g.name}: ${d}`);
    assert.doesNotMatch(d, /derived/, `${g.name}: ${d}`);
  });
});

// A GPU the table lacks, described in the profile: AMD's MI325X data sheet prints bfloat16 1,307.4
// TFLOPs dense, FP8 2,614.9, 6 TB/s of HBM3E; its CUDA-style total is the user's own (255.5 GiB here,
// a value of this test, not a log).
const MI325X = '{ name: MI325X, bf16_tflops: 1307.4, memory_bandwidth_gb_s: 6000, memory_gib: 255.5, fp8_tflops: 2614.9, pcie_gen: 5, interconnect: Infinity Fabric, interconnect_gb_s: 448 }';
const PROFILE_DIR = '/virtual/profiles';
const CONFIG: Record<string, string> = { [`${PROFILE_DIR}/llama/config.json`]: fixtureText('Llama-3.1-8B') };
function readText(text: string) {
  return readProfile(text, `${PROFILE_DIR}/serve.attn.yaml`, { readFile: (abs: string) => CONFIG[abs] ?? null });
}

test('device.gpu as a mapping: the one profile reader reads it into the step-time model and the pool, every figure labelled user-given', () => {
  const r = readText(`model: ./llama/config.json\ndevice: { gpu: ${MI325X} }\nworkload: { requests: 2, arrival_rate: 1, max_model_len: 4096 }\n`);
  assert.ok(r.value, JSON.stringify(r.problems));
  const p = r.value;
  assert.equal(p.device.gpu, 'MI325X');
  const g = deviceGpu(p.device)!;
  assert.deepEqual([g.bf16FlopsPerSec, g.fp8FlopsPerSec, g.memoryBytesPerSec, g.pcieGen, g.interconnect, g.interconnectBytesPerSec, g.userGiven], [1307.4e12, 2614.9e12, 6000e9, 5, 'Infinity Fabric', 448e9, true]);
  // The pool sizes from its memory_gib: 255.5 · 2^30 bytes.
  const e = estimate(p);
  assert.equal(e.pool.deviceMemoryBytes, Math.floor(255.5 * GiB));
  assert.equal(e.pool.deviceSource, 'device.gpu MI325X, 255.5 GiB user-given');
  // The step time reads the user's bandwidth: the weights' read takes 3,350 / 6,000 of the H100 SXM's (3.35 TB/s, datasheet).
  const h100 = readText('model: ./llama/config.json\ndevice: { gpu: H100 SXM }\nworkload: { requests: 2, arrival_rate: 1, max_model_len: 4096 }\n').value!;
  const m = stepTimeModel(p);
  assert.ok(Math.abs(m.weightsS / stepTimeModel(h100).weightsS - 3350 / 6000) < 1e-9);
  // Its name and source say user-given where the table's would say a datasheet.
  assert.equal(m.gpu, 'MI325X (user-given)');
  assert.match(m.source, /^llama on MI325X \(user-given\): bf16 1\.31 PFLOP\/s dense, memory 6 TB\/s, from the user-given device\.gpu MI325X \(bf16_tflops 1307\.4, memory_bandwidth_gb_s 6000\)/);
  // Left out: fp32 and int8 stand at bf16_tflops and say so; no fp8_tflops is no fp8 tensor cores.
  const bare = userGpu({ name: 'X', bf16_tflops: 100, memory_bandwidth_gb_s: 1000, memory_gib: 40 });
  assert.deepEqual([bare.fp32FlopsPerSec, bare.int8OpsPerSec, bare.fp8FlopsPerSec, bare.pcieGen, bare.interconnect, bare.interconnectBytesPerSec, bare.computeCapability, bare.nvlinkMulticast], [100e12, 100e12, undefined, 4, 'PCIe', 32e9, undefined, undefined]);
  // compute_capability and nvlink_multicast read into the GpuSpec fields vLLM's symmetric-memory tables key on.
  const hgx = readText('model: ./llama/config.json\ndevice: { gpu: { name: GB, bf16_tflops: 2250, memory_bandwidth_gb_s: 8000, memory_gib: 178, interconnect: NVLink, interconnect_gb_s: 900, compute_capability: "10.0", nvlink_multicast: true } }\n');
  assert.deepEqual(hgx.problems.filter((q) => q.severity === 'error'), []);
  const g2 = deviceGpu(hgx.value!.device)!;
  assert.deepEqual([g2.computeCapability, g2.nvlinkMulticast, g2.interconnect], ['10.0', true, 'NVLink']);
  // PCIe Gen6 (B300-class cards; s42 newcomer 11: refused, 'must be one of 4, 5'): PCI-SIG's x16 256 GB/s both
  // directions, 128 a direction, for the all-reduces; the host link 0.87 · 128 · 242/256 = 105.3 → 105 GB/s assumed.
  const gen6 = readText('model: ./llama/config.json\ndevice: { gpu: { name: G6, bf16_tflops: 2250, memory_bandwidth_gb_s: 8000, memory_gib: 178, pcie_gen: 6 } }\n');
  assert.deepEqual(gen6.problems.filter((q) => q.severity === 'error'), []);
  const g6 = deviceGpu(gen6.value!.device)!;
  assert.deepEqual([g6.pcieGen, g6.interconnectBytesPerSec, hostLinkBytesPerSec(g6)], [6, 128e9, 105e9]);
  assert.match(g6.interconnectSource, /PCIe Gen6 x16's 128 GB\/s a direction assumed/);
  assert.match(bare.fp32Source, /no fp32_tflops: fp32 at bf16_tflops 100/);
  assert.match(quantizedGemmPeak(bare, 'fp8').note!, /^device\.gpu X gives no fp8_tflops/);
  // A described AMD card (Infinity Fabric) without fp8_tflops: not CUDA's Marlin, which vLLM's fp8.py turns off on ROCm (s42 newcomer 11).
  const amd = quantizedGemmPeak(userGpu({ name: 'MI355X-like', bf16_tflops: 2300, memory_bandwidth_gb_s: 8000, memory_gib: 288, interconnect: 'Infinity Fabric' }), 'fp8');
  assert.equal(amd.peak, null);
  assert.match(amd.note!, /vLLM on ROCm has no weight-only fp8 path \(its Fp8LinearMethod turns the CUDA Marlin kernel off there/);
  assert.doesNotMatch(amd.note!, /runs the fp8 weights as weight-only \(Marlin/);
});

test('the step-time model records the GPU figures it divides by, each with its origin (s41 newcomer-ed F5 c: Compare had the GPU name only)', () => {
  const workload = 'workload: { requests: 2, arrival_rate: 1, max_model_len: 4096 }\n';
  // NVIDIA H100 datasheet (SXM): HBM3 3.35 TB/s, BF16 1,979 TFLOPS with sparsity (989 dense), NVLink 900 GB/s both directions (450e9 one).
  const h100 = stepTimeModel(readText(`model: ./llama/config.json\ndevice: { gpu: H100 SXM }\n${workload}`).value!).gpuFigures!;
  assert.deepEqual(
    [h100.memoryBytesPerSec, h100.memoryOrigin, h100.computeFlopsPerSec, h100.computePeak, h100.computeOrigin, h100.interconnect, h100.interconnectBytesPerSec, h100.interconnectOrigin, h100.gemmPeak],
    [3.35e12, 'datasheet', 989e12, 'bf16 peak', 'datasheet', 'NVLink', 450e9, 'datasheet', undefined],
  );
  assert.match(h100.source, /^NVIDIA H100 Tensor Core GPU datasheet/);
  // The described MI325X gives its link: every figure user-given.
  const mi = stepTimeModel(readText(`model: ./llama/config.json\ndevice: { gpu: ${MI325X} }\n${workload}`).value!).gpuFigures!;
  assert.deepEqual([mi.memoryBytesPerSec, mi.memoryOrigin, mi.computeOrigin, mi.interconnect, mi.interconnectBytesPerSec, mi.interconnectOrigin], [6000e9, 'user-given', 'user-given', 'Infinity Fabric', 448e9, 'user-given']);
  // No interconnect_gb_s: the link's rate is PCIe Gen4 x16's 32 GB/s a direction, derived.
  const bare = stepTimeModel(readText(`model: ./llama/config.json\ndevice: { gpu: { name: X, bf16_tflops: 100, memory_bandwidth_gb_s: 1000, memory_gib: 40 } }\n${workload}`).value!).gpuFigures!;
  assert.deepEqual([bare.interconnectBytesPerSec, bare.interconnectOrigin, bare.memoryOrigin], [32e9, 'derived', 'user-given']);
});

test('a bad described GPU: each problem at its own key or value, the profile not read; a table name off by a letter still gets its "did you mean"', () => {
  const text = 'model: ./llama/config.json\ndevice:\n  gpu:\n    name: MI325X\n    bf16_tflops: -5\n    memory_bandwith_gb_s: 6000\n';
  const r = readText(text);
  assert.equal(r.value, null);
  const at = (code: string) => r.problems.filter((x) => x.code === code).map((x) => text.slice(x.range.offset, x.range.offset + x.range.length));
  // bf16_tflops > 0 (the schema's exclusiveMinimum): at the value.
  assert.deepEqual(at('invalid-value'), ['-5']);
  assert.match(r.problems.find((x) => x.code === 'invalid-value')!.message, /^device\.gpu\.bf16_tflops must be > 0, not -5/);
  // The misspelt key at the key, with the key it means; the two required keys missing, at gpu.
  assert.deepEqual(at('unknown-key'), ['memory_bandwith_gb_s']);
  assert.match(r.problems.find((x) => x.code === 'unknown-key')!.message, /did you mean "memory_bandwidth_gb_s"\?/);
  // Each says what to write (s43 newcomer-ed M7): H100 SXM 3.35 TB/s on its datasheet; CUDA reports its 80 GB as 79.22 GiB (vLLM's log).
  assert.deepEqual(r.problems.filter((x) => x.code === 'missing-field').map((x) => x.message).sort(), [
    'device.gpu needs "memory_bandwidth_gb_s": its peak memory bandwidth in GB/s from the datasheet (H100 SXM: 3.35 TB/s, 3350)',
    "device.gpu needs \"memory_gib\": its memory in GiB as CUDA or ROCm reports it, vLLM's total_gpu_memory, not the datasheet's GB (H100 80GB: 79.22)",
  ]);
  assert.deepEqual(at('missing-field'), ['gpu', 'gpu']);
  // No message about the whole mapping not being a table name.
  assert.ok(!r.problems.some((x) => /must be one of H100 SXM|must be a GPU of the table/.test(x.message)), JSON.stringify(r.problems));
  // bf16_tflops and name left out: the dense figure, half the datasheet's with-sparsity one (H100 SXM: 1,979 / 2 = 989).
  const bare = readText('model: ./llama/config.json\ndevice: { gpu: { memory_bandwidth_gb_s: 6000, memory_gib: 255.5 } }\n');
  assert.deepEqual(bare.problems.filter((x) => x.code === 'missing-field').map((x) => x.message).sort(), [
    'device.gpu needs "bf16_tflops": its dense bf16 tensor-core TFLOP/s from the datasheet, without 2:4 sparsity: half the with-sparsity figure (H100 SXM: 989)',
    'device.gpu needs "name": what the figures call the card, e.g. `name: MI325X`',
  ]);
  const typo = readText('model: ./llama/config.json\ndevice: { gpu: B20 }\n');
  assert.match(typo.problems.find((x) => x.code === 'invalid-value')!.message, /^device\.gpu must be one of H100 SXM, .*B200.*: did you mean "B200"\?/);
  // Neither a name nor a mapping: the anyOf's own message.
  assert.match(readText('model: ./llama/config.json\ndevice: { gpu: 3 }\n').problems.find((x) => x.code === 'invalid-value')!.message, /^device\.gpu must be a GPU of the table .* or a mapping describing one/);
});

test('a described AMD card is ROCm as the table\'s MI300X is (s43): its platform key, or Infinity Fabric when left out; ROCm\'s page-size rule and no Marlin apply to it; a bad platform is refused at its value', () => {
  const pageNote = (gpu: string) => {
    const r = readText(`model: ./llama/config.json\ndevice: { gpu: ${gpu} }\nkv_cache: { page_size: 8 }\n`);
    assert.ok(r.value, JSON.stringify(r.problems));
    return checkProfile(r.value, estimate(r.value)).find((x) => x.code === 'page-size-not-vllm')?.message;
  };
  // The table's MI300X: ROCm's backends (vllm/v1/attention/backends/rocm_attn.py, triton_attn.py: multiples of 16).
  const table = pageNote('MI300X')!;
  assert.match(table, /^page_size 8 is not a block size vLLM runs on MI300X: its ROCm attention backends take multiples of 16 /);
  // A described MI325X on a PCIe link saying platform rocm, and one with Infinity Fabric and no platform key: the same sentence, its own name.
  const given = '{ name: MI325X, bf16_tflops: 1307.4, memory_bandwidth_gb_s: 6000, memory_gib: 255.5';
  assert.equal(pageNote(`${given}, platform: rocm }`), table.replace('on MI300X', 'on MI325X'));
  assert.equal(pageNote(`${given}, interconnect: Infinity Fabric }`), table.replace('on MI300X', 'on MI325X'));
  // Before s43 neither was ROCm: the CUDA backends' wording. It stays for an NVIDIA card, and where platform: cuda says so.
  assert.match(pageNote(`${given} }`)!, /: its CUDA attention backends take multiples of 16 \(FlashAttention/);
  assert.match(pageNote(`${given}, interconnect: Infinity Fabric, platform: cuda }`)!, /its CUDA attention backends/);
  // fp8 weights on a card without fp8 matrix cores: the MI300X row without its fp8 peak and a described rocm card say the same
  // after naming the card (vLLM's fp8.py turns the CUDA Marlin kernel off on ROCm); a described cuda card gets Marlin.
  const noFp8 = { ...row('MI300X'), fp8FlopsPerSec: undefined };
  const after = (note: string | undefined) => note!.slice(note!.indexOf(': ') + 2);
  const rocm = userGpu({ name: 'MI210-like', bf16_tflops: 181, memory_bandwidth_gb_s: 1638, memory_gib: 63.98, platform: 'rocm' });
  assert.equal(rocm.platform, 'rocm');
  assert.equal(after(quantizedGemmPeak(rocm, 'fp8').note), after(quantizedGemmPeak(noFp8, 'fp8').note));
  assert.match(after(quantizedGemmPeak(rocm, 'fp8').note), /^vLLM on ROCm has no weight-only fp8 path/);
  const cuda = userGpu({ name: 'X', bf16_tflops: 181, memory_bandwidth_gb_s: 1638, memory_gib: 64, interconnect: 'Infinity Fabric', platform: 'cuda' });
  assert.equal(cuda.platform, undefined);
  assert.match(quantizedGemmPeak(cuda, 'fp8').note!, /runs the fp8 weights as weight-only \(Marlin/);
  // A saved run's profile keeps it: the spec made again from the mapping as written (core/config/resolvedProfile.ts).
  assert.equal(userGpu(rocm.given!).platform, 'rocm');
  // README's MI325X example says platform: rocm and reads as written: a ROCm card.
  const readme = /`(device: \{ gpu: \{ name: MI325X, [^`]*)`/.exec(readFileSync(join(__dirname, '../../README.md'), 'utf8'))![1]!;
  const example = readText(`model: ./llama/config.json\n${readme}\n`);
  assert.deepEqual(example.problems.filter((x) => x.severity === 'error'), []);
  assert.deepEqual([readme.includes('platform: rocm'), deviceGpu(example.value!.device)!.platform], [true, 'rocm']);
  // Neither cuda nor rocm: refused at the value, with the values it takes.
  const text = `model: ./llama/config.json\ndevice: { gpu: ${given}, platform: amd } }\n`;
  const bad = readText(text);
  assert.equal(bad.value, null);
  const p = bad.problems.find((x) => x.code === 'invalid-value')!;
  assert.equal(text.slice(p.range.offset, p.range.offset + p.range.length), 'amd');
  assert.match(p.message, /^device\.gpu\.platform must be one of cuda, rocm/);
});

test('tensor-parallel all-reduces on the added rows: the MI300X\'s Infinity Fabric mesh is fully connected (custom all-reduce), an H100 PCIe node is not', () => {
  // Llama-3.1-8B: hidden_size 4,096, bf16: 8,192 B a token's message; 32 layers · 2 + 1 = 65 calls a step.
  const m = loadModel('Llama-3.1-8B');
  const mi = allReduceWork(m, row('MI300X'), 'bf16', 8);
  // vLLM's one-shot kernel below 256 KiB at tp 8 on a fully connected node: floor((262,144 − 1) / 8,192) = 31 tokens.
  assert.equal(mi.oneShotTokens, 31);
  // Two-shot / ring bytes, 2 · 7/8 · 8,192 a token a call, over 896 GB/s / 2 a direction at two-shot's fitted efficiency.
  assert.ok(Math.abs(mi.perTokenS - (65 * 1.75 * 8192) / (448e9 * ALL_REDUCE_EFFICIENCY.twoShot)) < 1e-15);
  // No NVLink SHARP on AMD: no multimem range.
  assert.equal(mi.multimemMaxTokens, 0);
  const pcie = allReduceWork(m, row('H100 PCIe'), 'bf16', 8);
  assert.equal(pcie.oneShotTokens, 0);
  assert.match(pcie.algorithm, /custom all-reduce is off for more than 2 PCIe GPUs/);
});

test('partly connected cards: a tp group gets the link it has (H100 NVL past a bridged pair: PCIe Gen5; MI300X: one Infinity Fabric link a peer)', () => {
  // Llama-3.1-8B: 65 calls a step, 8,192 B a token's message; two-shot / ring efficiency 0.5.
  const m = loadModel('Llama-3.1-8B');
  assert.equal(ALL_REDUCE_EFFICIENCY.twoShot, 0.5);
  // MI300X tp 2: one link, 896 GB/s / 7 links / 2 directions = 64e9 B/s (AMD data sheet: 128 GB/s a link, both
  // directions). Custom all-reduce (tp 2 runs it whatever the topology), M per GPU: 65 · 8,192 / (64e9 · 0.5) = 16.64 µs a token.
  const mi2 = allReduceWork(m, row('MI300X'), 'bf16', 2);
  assert.deepEqual([mi2.link.interconnect, mi2.link.bytesPerSec], ['Infinity Fabric', 64e9]);
  assert.ok(Math.abs(mi2.perTokenS - 16.64e-6) < 1e-12, String(mi2.perTokenS));
  assert.match(mi2.algorithm, /vLLM's custom all-reduce/);
  // ...below 8 MiB all one-shot at tp 2 (custom_all_reduce.cuh: world_size 2 runs the 1-stage kernel): (8 Mi − 1) / 8,192
  // -> 1,023 tokens at one-shot's 0.85: 65 · 8,192 / (64e9 · 0.85) = 9.788 µs a token.
  assert.equal(mi2.oneShotTokens, 1_023);
  assert.ok(Math.abs(mi2.perTokenOneShotS - (65 * 8192) / (64e9 * 0.85)) < 1e-15, String(mi2.perTokenOneShotS));
  // tp 4: three links, 192e9; 2 · 3/4 · 8,192 · 65 = 798,720 B / (192e9 · 0.5) = 8.32 µs; still fully connected (one-shot band).
  const mi4 = allReduceWork(m, row('MI300X'), 'bf16', 4);
  assert.equal(mi4.link.bytesPerSec, 192e9);
  assert.ok(Math.abs(mi4.perTokenS - 8.32e-6) < 1e-12, String(mi4.perTokenS));
  assert.equal(mi4.oneShotTokens, 63);
  // tp 8: all seven, the card's 448e9 (unchanged).
  assert.equal(allReduceWork(m, row('MI300X'), 'bf16', 8).link.bytesPerSec, 448e9);
  // H100 NVL tp 2: the bridged pair's NVLink, 600 GB/s / 2 = 300e9, custom all-reduce.
  const nvl2 = allReduceWork(m, row('H100 NVL'), 'bf16', 2);
  assert.deepEqual([nvl2.link.interconnect, nvl2.link.bytesPerSec], ['NVLink', 300e9]);
  // tp 4 and 8: not all NVLink-connected (vLLM: custom all-reduce off), NCCL's ring over PCIe Gen5 x16, 64e9 a direction:
  // tp 4: 65 · 1.5 · 8,192 / (64e9 · 0.5) = 24.96 µs a token; tp 8: 65 · 1.75 · 8,192 / 32e9 = 29.12 µs (was 6.2 over NVLink).
  for (const [tp, expected] of [[4, 24.96e-6], [8, 29.12e-6]] as const) {
    const nvl = allReduceWork(m, row('H100 NVL'), 'bf16', tp);
    assert.deepEqual([nvl.link.interconnect, nvl.link.bytesPerSec, nvl.oneShotTokens, nvl.multimemMaxTokens], ['PCIe', 64e9, 0, 0]);
    assert.ok(Math.abs(nvl.perTokenS - expected) < 1e-12, `tp ${tp}: ${nvl.perTokenS}`);
    assert.match(nvl.algorithm, /^NCCL's ring/);
    assert.match(nvl.link.source, /NVLink-bridged in pairs.*PCIe Gen5 x16 between the pairs, 64 GB\/s a direction/);
  }
});

test('A100 PCIe 80GB: its datasheet column and NVLink-bridged pairs (an A100 PCIe node no longer gets the SXM board\'s NVSwitch); a described GPU says the same with nvlink_bridged_pairs', () => {
  // NVIDIA A100 datasheet, A100 80GB PCIe column: BF16 Tensor Core 312 TFLOPS (624 with sparsity), FP32 19.5,
  // INT8 624 TOPS, HBM2e 1,935 GB/s, "NVLink Bridge for 2 GPUs: 600GB/s" (both directions: 300 a direction),
  // "PCIe Gen4: 64GB/s". CUDA's total: TensorFlow's device log "deviceMemorySize: 79.21GiB" (DeepLearningExamples#1262).
  const a = row('A100 PCIe 80GB');
  assert.deepEqual([a.bf16FlopsPerSec, a.fp32FlopsPerSec, a.int8OpsPerSec, a.fp8FlopsPerSec, a.memoryBytesPerSec, a.cudaMemoryGib, a.pcieGen, a.interconnect, a.interconnectBytesPerSec, a.nvlinkBridgedPairs, a.nvlinkMulticast],
    [312e12, 19.5e12, 624e12, undefined, 1.935e12, 79.21, 4, 'NVLink', 300e9, true, undefined]);
  assert.equal(estimate(llamaOn('A100 PCIe 80GB')).pool.deviceSource, 'device.gpu A100 PCIe 80GB, 79.21 GiB as CUDA reports it');
  // Llama-3.1-8B (65 calls, 8,192 B a token's message). tp 2: the bridged pair's NVLink, 300e9, vLLM's custom all-reduce.
  // tp 4: not fully connected, NCCL's ring over PCIe Gen4 x16, 32e9: 65 · 1.5 · 8,192 / (32e9 · 0.5) = 49.92 µs a token
  // (the A100 80GB SXM row: 300e9 over NVSwitch, 65 · 1.5 · 8,192 / (300e9 · 0.5) = 5.3248 µs).
  const m = loadModel('Llama-3.1-8B');
  const pair = allReduceWork(m, a, 'bf16', 2);
  assert.deepEqual([pair.link.interconnect, pair.link.bytesPerSec], ['NVLink', 300e9]);
  assert.match(pair.algorithm, /vLLM's custom all-reduce/);
  const four = allReduceWork(m, a, 'bf16', 4);
  assert.deepEqual([four.link.interconnect, four.link.bytesPerSec, four.oneShotTokens], ['PCIe', 32e9, 0]);
  assert.ok(Math.abs(four.perTokenS - 49.92e-6) < 1e-12, String(four.perTokenS));
  assert.match(four.algorithm, /^NCCL's ring/);
  assert.match(four.link.source, /A100 PCIe 80GB boards are NVLink-bridged in pairs.*PCIe Gen4 x16 between the pairs, 32 GB\/s a direction/);
  assert.ok(Math.abs(allReduceWork(m, row('A100 80GB'), 'bf16', 4).perTokenS - 5.3248e-6) < 1e-12);
  // A described GPU with nvlink_bridged_pairs behaves as the table's bridged rows: the pair's link at tp 2, PCIe of pcie_gen past it.
  const text = (extra: string) => `model: ./llama/config.json\ndevice: { gpu: { name: BP, bf16_tflops: 312, memory_bandwidth_gb_s: 1935, memory_gib: 79.21, pcie_gen: 4${extra} } }\n`;
  const bridged = readText(text(', interconnect: NVLink, interconnect_gb_s: 300, nvlink_bridged_pairs: true'));
  assert.deepEqual(bridged.problems.filter((q) => q.severity === 'error'), []);
  const g = deviceGpu(bridged.value!.device)!;
  assert.equal(g.nvlinkBridgedPairs, true);
  for (const tp of [2, 4, 8]) {
    const [mine, table] = [allReduceWork(m, g, 'bf16', tp), allReduceWork(m, a, 'bf16', tp)];
    assert.deepEqual([mine.link.interconnect, mine.link.bytesPerSec, mine.perTokenS, mine.oneShotTokens], [table.link.interconnect, table.link.bytesPerSec, table.perTokenS, table.oneShotTokens], `tp ${tp}`);
  }
  // Left out: every GPU reaches every other over interconnect (NVLink at tp 4, no PCIe fallback).
  const whole = deviceGpu(readText(text(', interconnect: NVLink, interconnect_gb_s: 300')).value!.device)!;
  assert.deepEqual([whole.nvlinkBridgedPairs, allReduceWork(m, whole, 'bf16', 4).link.bytesPerSec], [undefined, 300e9]);
  // A wrong type at the value; the bridges are NVLink: interconnect missing or PCIe is refused, saying why.
  const wrong = readText(text(', interconnect: NVLink, nvlink_bridged_pairs: 2'));
  const t = wrong.problems.find((q) => q.code === 'wrong-type')!;
  assert.equal(t.message, 'device.gpu.nvlink_bridged_pairs must be a boolean, not the number 2');
  assert.equal(text(', interconnect: NVLink, nvlink_bridged_pairs: 2').slice(t.range.offset, t.range.offset + t.range.length), '2');
  assert.deepEqual(readText(text(', nvlink_bridged_pairs: true')).problems.filter((q) => q.severity === 'error').map((q) => q.message),
    ['device.gpu needs "interconnect: NVLink" where nvlink_bridged_pairs is true (the bridges are NVLink; interconnect_gb_s is a pair\'s link)']);
  assert.deepEqual(readText(text(', interconnect: PCIe, nvlink_bridged_pairs: true')).problems.filter((q) => q.severity === 'error').map((q) => q.message),
    ['device.gpu.interconnect must be NVLink where nvlink_bridged_pairs is true (the bridges are NVLink; interconnect_gb_s is a pair\'s link), not the string "PCIe"']);
  // Both link kinds at once (s44 newcomer M2: accepted, and the bridged pairs' PCIe ring ran): refused at nvlink_bridged_pairs.
  const both = text(', interconnect: NVLink, interconnect_gb_s: 450, nvlink_multicast: true, nvlink_bridged_pairs: true');
  const bothErrors = readText(both).problems.filter((q) => q.severity === 'error');
  assert.deepEqual(bothErrors.map((q) => q.message), ['device.gpu.nvlink_bridged_pairs must be false where nvlink_multicast is true (a board has NVLink SHARP multicast through an NVSwitch, HGX, or NVLink bridges between pairs of PCIe cards, never both: keep the one this board has), not true']);
  assert.equal(bothErrors[0].range.offset, both.lastIndexOf('true'));
});

test('a described GPU: the interconnect assumed at tp > 1, unit slips, and a table name reused are warnings at their keys (s42 newcomer 4, 8)', () => {
  const read = (gpu: string, tp = 8) => readText(`model: ./llama/config.json\ndtype: bf16\ndevice: { tensor_parallel_size: ${tp}, gpu: ${gpu} }\n`);
  const codes = (gpu: string, tp = 8) => {
    const r = read(gpu, tp);
    assert.ok(r.value, JSON.stringify(r.problems));
    return checkProfile(r.value, estimate(r.value)).filter((x) => ['interconnect-assumed', 'gpu-figure-implausible', 'gpu-name-shadows-table'].includes(x.code));
  };
  const bare = '{ name: MI325X, bf16_tflops: 1307.4, memory_bandwidth_gb_s: 6000, memory_gib: 255.5 }';
  // README's old MI325X example at tp 8: no interconnect, so PCIe Gen4 x16 (64 GB/s both directions = 32 a direction) is what runs.
  const [assumed, ...rest] = codes(bare);
  assert.equal(rest.length, 0);
  assert.equal(assumed.code, 'interconnect-assumed');
  assert.match(assumed.message, /^device\.gpu MI325X gives no interconnect: at tensor_parallel_size 8 its all-reduces are modelled over PCIe, 32 GB\/s a direction \(PCIe Gen4 x16 assumed\)/);
  // At tp 1 there is no all-reduce: no warning. With the interconnect given (README's example now), none either.
  assert.deepEqual(codes(bare, 1), []);
  assert.deepEqual(codes(MI325X), []);
  // interconnect_gb_s 450 without interconnect is taken as PCIe's: said, at that key.
  const gbs = codes('{ name: Y, bf16_tflops: 900, memory_bandwidth_gb_s: 3000, memory_gib: 80, interconnect_gb_s: 450 }');
  assert.deepEqual(gbs.map((x) => x.code), ['interconnect-assumed']);
  assert.match(gbs[0].message, /450 GB\/s a direction \(interconnect_gb_s taken as a PCIe link's\)/);
  const text = 'model: ./llama/config.json\ndtype: bf16\ndevice: { tensor_parallel_size: 8, gpu: { name: Y, bf16_tflops: 900, memory_bandwidth_gb_s: 3000, memory_gib: 80, interconnect_gb_s: 450 } }\n';
  assert.equal(gbs[0].range.offset, text.indexOf('450'));
  // Unit slips, 10x outside every card's range (L4 300 GB/s to B200 8,000; 22 to 192 GiB): 3.35 TB/s in the GB/s key,
  // nvidia-smi's 81,559 MiB in the GiB key, 0.45 (TB/s) for NVLink's 450 GB/s. 3,000 GB/s and 80 GiB are not flagged.
  const slips = codes('{ name: X, bf16_tflops: 1000, memory_bandwidth_gb_s: 3.35, memory_gib: 81559, interconnect: NVLink, interconnect_gb_s: 0.45 }');
  assert.deepEqual(slips.map((x) => [x.code, (x.data as { key: string }).key]), [
    ['gpu-figure-implausible', 'device.gpu.memory_bandwidth_gb_s'], ['gpu-figure-implausible', 'device.gpu.memory_gib'], ['gpu-figure-implausible', 'device.gpu.interconnect_gb_s']]);
  assert.match(slips[0].message, /^device\.gpu\.memory_bandwidth_gb_s 3\.35: TB\/s typed in a GB\/s key\?/);
  assert.match(slips[1].message, /^device\.gpu\.memory_gib 81559: MiB typed in a GiB key\?/);
  // NVLink given without its rate (s44 newcomer M1): PCIe Gen4 x16's 32 GB/s a direction ran as "NVLink 32 GB/s", unwarned; warned at interconnect.
  const noRate = 'model: ./llama/config.json\ndtype: bf16\ndevice: { tensor_parallel_size: 4, gpu: { name: X7, bf16_tflops: 500, memory_bandwidth_gb_s: 2000, memory_gib: 80, interconnect: NVLink } }\n';
  const rateAssumed = (() => { const r = readText(noRate); return checkProfile(r.value!, estimate(r.value!)).filter((x) => x.code === 'interconnect-rate-assumed'); })();
  assert.equal(rateAssumed.length, 1);
  assert.match(rateAssumed[0].message, /^device\.gpu X7 gives interconnect NVLink but no interconnect_gb_s: at tensor_parallel_size 4 its all-reduces are modelled at PCIe Gen4 x16's 32 GB\/s a direction/);
  assert.equal(rateAssumed[0].range.offset, noRate.indexOf('NVLink'));
  // With the rate, with PCIe (whose x16 rate is what is assumed) or at tp 1: none.
  assert.deepEqual(codes('{ name: X7, bf16_tflops: 500, memory_bandwidth_gb_s: 2000, memory_gib: 80, interconnect: NVLink, interconnect_gb_s: 450 }'), []);
  for (const [gpu, tp] of [['{ name: X7, bf16_tflops: 500, memory_bandwidth_gb_s: 2000, memory_gib: 80, interconnect: PCIe }', 8], ['{ name: X7, bf16_tflops: 500, memory_bandwidth_gb_s: 2000, memory_gib: 80, interconnect: NVLink }', 1]] as const) {
    const r = read(gpu, tp);
    assert.deepEqual(checkProfile(r.value!, estimate(r.value!)).filter((x) => x.code === 'interconnect-rate-assumed'), []);
  }
  // A described GPU named as a table row: warned at its name.
  const shadow = codes('{ name: H100 SXM, bf16_tflops: 10, memory_bandwidth_gb_s: 3350, memory_gib: 80, interconnect: NVLink, interconnect_gb_s: 450 }');
  assert.deepEqual(shadow.map((x) => x.code), ['gpu-name-shadows-table']);
  // The interconnect enum's message quotes its value holding a comma, so "PCIe, no P2P" does not read as a second PCIe.
  const bad = read('{ name: Z, bf16_tflops: 900, memory_bandwidth_gb_s: 3000, memory_gib: 80, interconnect: Ethernet }').problems.find((x) => x.code === 'invalid-value')!;
  assert.match(bad.message, /^device\.gpu\.interconnect must be one of NVLink, PCIe, "PCIe, no P2P", Infinity Fabric, not the string "Ethernet"/);
});

test('a described GPU: dtype fp32 without fp32_tflops is warned at dtype (fp32 timed at the bf16 tensor peak; s42 newcomer 11); Gen6 PCIe in the interconnect warning', () => {
  const problems = (text: string) => {
    const r = readText(text);
    assert.ok(r.value, JSON.stringify(r.problems));
    return checkProfile(r.value, estimate(r.value)).filter((x) => x.code === 'fp32-at-bf16-peak' || x.code === 'interconnect-assumed');
  };
  const text = 'model: ./llama/config.json\ndtype: fp32\ndevice: { gpu: { name: X, bf16_tflops: 900, memory_bandwidth_gb_s: 3000, memory_gib: 80 } }\n';
  const [w, ...rest] = problems(text);
  assert.equal(rest.length, 0);
  assert.equal(w!.code, 'fp32-at-bf16-peak');
  assert.equal(w!.range.offset, text.indexOf('fp32'));
  assert.match(w!.message, /^dtype fp32 on device\.gpu X, which gives no fp32_tflops: its fp32 GEMMs are timed at bf16_tflops 900/);
  // fp32_tflops given, or bf16: no warning.
  assert.deepEqual(problems(text.replace('memory_gib: 80', 'memory_gib: 80, fp32_tflops: 60')), []);
  assert.deepEqual(problems(text.replace('dtype: fp32', 'dtype: bf16')), []);
  // pcie_gen 6 at tp 2 without interconnect: 128 GB/s a direction (was read as Gen4's 32 by a 5-or-else rule).
  const gen6 = problems('model: ./llama/config.json\ndtype: bf16\ndevice: { tensor_parallel_size: 2, gpu: { name: X, bf16_tflops: 900, memory_bandwidth_gb_s: 3000, memory_gib: 80, pcie_gen: 6 } }\n');
  assert.match(gen6[0]!.message, /modelled over PCIe, 128 GB\/s a direction \(PCIe Gen6 x16 assumed\)/);
});

test('a described GPU: fp8_tflops below bf16_tflops, and platform cuda on an Infinity Fabric link, are warnings at their keys (s43 newcomer43 L4, s43 review)', () => {
  // The claim the fp8 warning makes, checked on the table: every card with fp8 tensor cores runs them at least at its bf16 rate.
  for (const g of GPUS) if (g.fp8FlopsPerSec !== undefined) assert.ok(g.fp8FlopsPerSec >= g.bf16FlopsPerSec, g.name);
  const check = (gpu: string) => {
    const text = `model: ./llama/config.json\ndtype: bf16\ndevice: { gpu: ${gpu} }\n`;
    const r = readText(text);
    assert.ok(r.value, JSON.stringify(r.problems));
    return { text, found: checkProfile(r.value, estimate(r.value)).filter((x) => ['gpu-fp8-below-bf16', 'gpu-platform-link-mismatch'].includes(x.code)) };
  };
  const slow = check('{ name: X, bf16_tflops: 100, fp8_tflops: 50, memory_bandwidth_gb_s: 1000, memory_gib: 40 }');
  assert.deepEqual(slow.found.map((x) => x.code), ['gpu-fp8-below-bf16']);
  assert.match(slow.found[0]!.message, /^device\.gpu\.fp8_tflops 50 is below bf16_tflops 100: fp8 tensor cores run at twice the bf16 rate on every card of the table that has them/);
  assert.equal(slow.text.slice(slow.found[0]!.range.offset, slow.found[0]!.range.offset + slow.found[0]!.range.length), '50');
  // fp8 at or above bf16 (MI325X: 2,614.9 vs 1,307.4), or none: no warning.
  assert.deepEqual(check(MI325X).found, []);
  assert.deepEqual(check('{ name: X, bf16_tflops: 100, memory_bandwidth_gb_s: 1000, memory_gib: 40 }').found, []);
  // MI325X's figures with platform cuda written: AMD's link under CUDA's rules, warned at platform.
  const cuda = check(MI325X.replace(' }', ', platform: cuda }'));
  assert.deepEqual(cuda.found.map((x) => x.code), ['gpu-platform-link-mismatch']);
  assert.match(cuda.found[0]!.message, /^device\.gpu MI325X has platform cuda and interconnect Infinity Fabric: Infinity Fabric is AMD's link/);
  assert.equal(cuda.text.slice(cuda.found[0]!.range.offset, cuda.found[0]!.range.offset + cuda.found[0]!.range.length), 'cuda');
  assert.deepEqual(check(MI325X.replace(' }', ', platform: rocm }')).found, []);
});

test('ring_all_reduce_efficiency: a fraction (0, 1] at its key; beside step_time.all_reduce.efficiency.two_shot, which replaces it, a warning there', () => {
  const text = (gpu: string, rest = '') => `model: ./llama/config.json\ndtype: bf16\ndevice: { tensor_parallel_size: 2, gpu: { name: X, bf16_tflops: 900, memory_bandwidth_gb_s: 3000, memory_gib: 80, interconnect: NVLink, interconnect_gb_s: 300${gpu} } }\n${rest}`;
  const ok = readText(text(', ring_all_reduce_efficiency: 0.69'));
  assert.deepEqual(ok.problems.filter((q) => q.severity === 'error'), []);
  assert.equal(deviceGpu(ok.value!.device)!.ringAllReduceEfficiency, 0.69);
  for (const bad of ['1.5', '0']) {
    const t = text(`, ring_all_reduce_efficiency: ${bad}`);
    const errors = readText(t).problems.filter((q) => q.severity === 'error');
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0]!.message, /^device\.gpu\.ring_all_reduce_efficiency must be /);
    assert.equal(t.slice(errors[0]!.range.offset, errors[0]!.range.offset + errors[0]!.range.length), bad);
  }
  const both = text(', ring_all_reduce_efficiency: 0.69', 'step_time: { all_reduce: { efficiency: { two_shot: 0.6 } } }\n');
  const r = readText(both);
  const w = checkProfile(r.value!, estimate(r.value!)).filter((x) => x.code === 'ring-efficiency-replaced');
  assert.equal(w.length, 1);
  assert.match(w[0]!.message, /^device\.gpu\.ring_all_reduce_efficiency 0\.69 is not used: step_time\.all_reduce\.efficiency\.two_shot 0\.6 is NCCL's ring's at every size/);
  assert.equal(both.slice(w[0]!.range.offset, w[0]!.range.offset + 4), '0.69');
});
