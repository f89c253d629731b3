/**
 * Named GPUs, chosen by the profile's `device.gpu`: the published peaks the serving
 * simulation's step-time model uses (runner/simulate/step-time.ts), and the device memory a
 * serving engine sees on each card, which sizes the KV pool when `device.memory_gib` is not
 * written (core/estimate deviceMemory).
 *
 * Peaks are the vendor's published figures, copied from the source each entry names: dense
 * bf16 tensor-core FLOP/s (without 2:4 sparsity, which datasheets print beside it at twice the
 * figure) and memory bandwidth. They are ceilings, not measurements; the model scales them by
 * efficiency factors it reports. NVIDIA publishes no datasheet of the H20: its row copies the
 * figures its resellers print, and says so. The MI300X is AMD's (data sheet figures), served by
 * vLLM through ROCm ({@link GpuSpec.platform}).
 *
 * Memory is what CUDA reports as the device's total (torch.cuda.mem_get_info()[1], which vLLM
 * prints as `total_gpu_memory`), not the marketing capacity: an "80 GB" A100 reports 79.15 GiB.
 * Every row carries one, copied from a public log of the card where one was found (vLLM's
 * total_gpu_memory, the same cudaMemGetInfo / hipMemGetInfo total in a PyTorch out-of-memory
 * error, "GPU 0 has a total capacity of ...", or the driver's total in a device query, CUDA's
 * deviceQuery or torch.cuda.get_device_properties, which is the same figure: an H100 NVL's
 * deviceQuery reads 99,861,594,112 bytes, 93.00 GiB (thamada/nvidia-smi gls/H100NVLx2_deviceQuery.py),
 * as its out-of-memory error does; OpenXLA's device configs read the same driver total). A row
 * for a card with no such public log is not added (a derived total would size every pool on that
 * card wrong by an unknown amount). It is neither the datasheet's GB
 * read as 10^9 bytes (an RTX 4090's "24 GB" would be 22.35 GiB; CUDA reports 23.64) nor
 * nvidia-smi's MiB total, which is larger than what CUDA hands out (A10: nvidia-smi 23,028 MiB =
 * 22.49 GiB, vLLM 22.07 GiB; H100 80GB HBM3: 81,559 MiB = 79.65 GiB, vLLM 79.22 GiB). A card's
 * total moves by a few hundredths of a GiB between drivers; a user who has the log of their own
 * card writes its total_gpu_memory as device.memory_gib.
 */

const GIB = 1024 ** 3;

export interface GpuSpec {
  /** The name `device.gpu` takes (the schema's enum lists these). */
  name: string;
  /** Dense bf16 tensor-core peak, FLOP/s (fp16 runs at the same rate on these tensor cores with fp32 accumulate, as PyTorch's matmuls use). */
  bf16FlopsPerSec: number;
  /** fp32 peak on the CUDA cores (non-tensor), FLOP/s: what fp32 matmuls run at with TF32 off, PyTorch's default (see {@link computePeak}). */
  fp32FlopsPerSec: number;
  /** Where fp32FlopsPerSec is copied from. */
  fp32Source: string;
  /**
   * Dense fp8 (e4m3) tensor-core peak with fp32 accumulate, FLOP/s; absent on cards without fp8
   * tensor cores (Ampere: A100, A10), where vLLM runs fp8 checkpoints as weight-only (Marlin).
   */
  fp8FlopsPerSec?: number;
  /** Dense int8 tensor-core peak, OP/s (what vLLM's W8A8 int8 GEMMs, cutlass_scaled_mm, run at). */
  int8OpsPerSec: number;
  /** Where fp8FlopsPerSec and int8OpsPerSec are copied from (datasheets print twice them, with sparsity). */
  lowPrecisionSource: string;
  /** Peak memory bandwidth, bytes/s (SI: 3.35e12 = 3.35 TB/s). */
  memoryBytesPerSec: number;
  /** Memory on the board, bytes as the vendor prints them (80 GB = 80e9). */
  memoryBytes: number;
  /** Total device memory as CUDA reports it (torch.cuda.mem_get_info()[1], vLLM `total_gpu_memory`), GiB. */
  cudaMemoryGib: number;
  /** Where the peaks and board memory are copied from. */
  source: string;
  /** Where cudaMemoryGib is copied from: the public log and its line. */
  memorySource: string;
  /** PCIe generation of the card's x16 host link, from the vendors' datasheets (H100 SXM, H200, H100 PCIe / NVL, H20: "PCIe Gen5: 128GB/s"; MI300X: PCIe Gen 5 x16; A100, L40S, A10, L4: "PCIe Gen4: 64GB/s", both directions together; RTX 4090: PCIe Gen 4; B200: see its row): what device.cpu_offload_gb's weights cross every forward pass ({@link hostLinkBytesPerSec}). */
  pcieGen: 4 | 5 | 6;
  /**
   * The link tensor-parallel all-reduces cross between the GPUs of one node: 'NVLink' (SXM boards
   * on NVSwitch, every pair fully connected), 'PCIe' (peer to peer through the PCIe switches),
   * 'PCIe, no P2P' (GeForce boards: the driver refuses peer access, so vLLM's custom all-reduce is
   * off and NCCL stages the data through host memory), or 'Infinity Fabric' (AMD Instinct boards:
   * seven point-to-point links from each GPU to the other seven of an 8-GPU node, RCCL's rings
   * using them all at once).
   */
  interconnect: 'NVLink' | 'PCIe' | 'PCIe, no P2P' | 'Infinity Fabric';
  /**
   * That link's bandwidth per GPU in one direction, bytes/s (SI): datasheets print both directions
   * together, so H100 SXM's "NVLink: 900GB/s" is 450e9 here and a PCIe Gen4 x16's "64GB/s" 32e9.
   * What the tensor-parallel all-reduces' bytes divide by (runner/simulate/step-time.ts).
   */
  interconnectBytesPerSec: number;
  /** Where interconnect and interconnectBytesPerSec are copied from. */
  interconnectSource: string;
  /**
   * The CUDA compute capability as vLLM reads it (current_platform.get_device_capability()
   * .as_version_str()): '9.0' on Hopper (H100, H200, H20), '10.0' on the B200, from NVIDIA's CUDA
   * GPU compute capability table. Set on the rows whose capability vLLM's symmetric-memory
   * all-reduce tables list (vllm/distributed/device_communicators/all_reduce_utils.py
   * CUSTOM_ALL_REDUCE_MAX_SIZES and SYMM_MEM_ALL_REDUCE_MAX_SIZES: "9.0", "10.0", "10.3"); absent
   * elsewhere (Ampere and Ada: no table, vLLM's symmetric memory stays off).
   */
  computeCapability?: string;
  /**
   * NVLink SHARP multicast through NVSwitch (HGX boards: H100 SXM, H200, H20, B200): with a
   * {@link computeCapability} vLLM's tables list, vLLM's default symmetric-memory all-reduce
   * (VLLM_ALLREDUCE_USE_SYMM_MEM=1; SymmMemCommunicator needs the rendezvous's multicast_ptr) runs
   * and cuts the custom all-reduce's limit (runner/simulate/step-time.ts allReduceWork). Absent:
   * false (PCIe and NVLink-bridged boards).
   */
  nvlinkMulticast?: boolean;
  /**
   * NVLink bridges join the boards in pairs only (H100 NVL, sold as bridged pairs; A100 PCIe 80GB,
   * "NVLink Bridge for 2 GPUs"; a described GPU's nvlink_bridged_pairs): a tensor-parallel group
   * past a pair is not fully NVLink-connected, so its all-reduces cross PCIe ({@link tpGroupLink}).
   * Absent: false.
   */
  nvlinkBridgedPairs?: boolean;
  /**
   * NCCL's ring all-reduce's large-message bus bandwidth on this card's own interconnect, as a
   * fraction (0, 1] of {@link interconnectBytesPerSec}: nccl-tests' all_reduce_perf busbw (2 · (n −
   * 1)/n · size / time) at GiB messages over the link's per-direction rate. What the step time
   * charges NCCL's ring on messages past 4 MiB (runner/simulate/step-time.ts RING_FIT_MAX_BYTES)
   * over this link; {@link ringAllReduceSource} says where it comes from. Absent: the H100 SXM
   * NVLink figure, 0.82 (step-time.ts ALL_REDUCE_EFFICIENCY.ring), assumed. A described GPU's
   * ring_all_reduce_efficiency. For NVLink-bridged pairs it is the pair's bridge (tp 2); past a
   * pair the ring crosses PCIe, at {@link BRIDGED_PCIE_RING_EFFICIENCY} ({@link tpGroupLink}).
   */
  ringAllReduceEfficiency?: number;
  /** Where {@link ringAllReduceEfficiency} comes from: a measurement (its thread) or the profile's key. */
  ringAllReduceSource?: string;
  /**
   * NCCL's NVLink SHARP (NVLS) all-reduce's large-message bus bandwidth on this card's NVSwitch
   * board, bytes/s (SI), by the tp group's GPU count, where it beats the ring's
   * ({@link ringAllReduceEfficiency}): nccl-tests' all_reduce_perf busbw (2 · (n − 1)/n · size /
   * time, the ring's bytes, though NVLS moves fewer: "neither the algbw nor busbw correspond to
   * the bandwidth on the wire", NVIDIA/nccl-tests#212) at GiB messages with NCCL_ALGO=NVLS. NCCL
   * runs NVLS by default where the device reports CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
   * (NCCL_NVLS_ENABLE=2, src/transport/nvls.cc ncclNvlsInit: NVSwitch boards with NVLink SHARP,
   * {@link nvlinkMulticast}) and its tuner picks it over the ring; vLLM leaves NCCL_NVLS_ENABLE
   * alone. What the step time charges NCCL past 4 MiB at these group sizes
   * (runner/simulate/step-time.ts nvlsAllReduce); {@link nvlsAllReduceSource} says where the figures
   * come from. Absent (or no entry for the group size): NCCL's ring. Set on H100 SXM and H200
   * ({@link NVLINK4_NVLS_BUS_BYTES_PER_SEC}).
   */
  nvlsAllReduceBusBytesPerSec?: Readonly<Partial<Record<number, number>>>;
  /** Where {@link nvlsAllReduceBusBytesPerSec} comes from: the measurement's thread. */
  nvlsAllReduceSource?: string;
  /**
   * NCCL's NVLS all-reduce's latency a call, seconds: the α of its α-β line, whose β is
   * {@link nvlsAllReduceBusBytesPerSec} (the peak), so that a message of M bytes at n GPUs takes
   * α + 2 · (n − 1)/n · M / busbw and its busbw ramps up to the peak with size. Absent: the ring's
   * (runner/simulate/step-time.ts ringCallLatencyS). Set on H100 SXM and H200
   * ({@link NVLINK4_NVLS_LATENCY_S}, fitted to a published per-size table).
   */
  nvlsAllReduceLatencyS?: number;
  /** Where {@link nvlsAllReduceLatencyS} comes from: the table it was fitted to. */
  nvlsAllReduceLatencySource?: string;
  /**
   * The vendor's software stack: 'rocm' for AMD Instinct cards, which vLLM runs through ROCm. What
   * differs there for the model: fp8 is the e4m3fnuz variant (vLLM's normalize_e4m3fn_to_e4m3fnuz
   * doubles an e4m3fn checkpoint's scales, same bytes, same rate), weight-only quantized layers
   * run without the CUDA Marlin kernels ({@link quantizedGemmPeak}), and the page-size rule is
   * ROCm's attention backends' (core/estimate/checks.ts vllmPageSizeNote). A described GPU's
   * (userGpu) from its `platform` key, or, left out, 'rocm' where its interconnect is Infinity
   * Fabric (AMD's link, on AMD cards only). Absent: 'cuda'.
   */
  platform?: 'rocm';
  /** True for a GPU the profile describes (device.gpu as an object, {@link userGpu}): every figure is the user's, and says so. */
  userGiven?: true;
  /**
   * A described GPU's device.gpu mapping as the profile wrote it, which {@link userGpu} made this
   * spec from: a resolved Profile received without its text (the runner's stdin door, a saved
   * run's profile) is checked against the schema by it and its spec made again from it
   * (core/config/resolvedProfile.ts), as a file's is.
   */
  given?: UserGpuFields;
  /** A described GPU's figures its keys left out, taken from another ({@link userGpu}): fp32 and int8 at bf16_tflops, the link's rate at PCIe's x16. */
  derived?: ReadonlyArray<'fp32' | 'int8' | 'interconnect'>;
}

/**
 * A GPU the profile describes instead of naming a row (`device.gpu` as an object), in the units
 * its keys name: TFLOP/s and TOP/s (10^12, dense, without 2:4 sparsity), GB/s (10^9 bytes/s) per
 * direction for the links, GiB (2^30 bytes) for memory as CUDA or ROCm reports it (vLLM's
 * total_gpu_memory). The schema (schemas/attn-profile.schema.json device.gpu) validates it.
 */
export interface UserGpuFields {
  /** The GPU's name, as the run and tables show it. */
  name: string;
  /** Dense bf16 tensor peak, TFLOP/s (10^12 FLOP/s). */
  bf16_tflops: number;
  /** Memory bandwidth, GB/s (10^9 bytes/s). */
  memory_bandwidth_gb_s: number;
  /** Device memory, GiB (2^30 bytes). */
  memory_gib: number;
  /** Dense fp32 (non-tensor) peak, TFLOP/s (10^12 FLOP/s). */
  fp32_tflops?: number;
  /** Dense fp8 tensor peak, TFLOP/s (10^12 FLOP/s). */
  fp8_tflops?: number;
  /** Dense int8 tensor peak, TOP/s (10^12 OP/s). */
  int8_tops?: number;
  /** PCIe generation of the host link (4, 5 or 6). */
  pcie_gen?: 4 | 5 | 6;
  /** The link between the GPUs. */
  interconnect?: GpuSpec['interconnect'];
  /** Interconnect bandwidth between GPUs, one direction, GB/s (10^9 bytes/s). */
  interconnect_gb_s?: number;
  /** The GPU's CUDA compute capability as vLLM's tables write it ("9.0", "10.0"); left out: none (no custom all-reduce tables, symmetric memory off). */
  compute_capability?: string;
  /** NVLink SHARP multicast through NVSwitch (HGX boards): vLLM's symmetric-memory all-reduce and NCCL's NVLS run; left out, false. */
  nvlink_multicast?: boolean;
  /** NVLink bridges join the boards in pairs only (H100 NVL): past tp 2 the all-reduces cross PCIe; left out, false. Needs interconnect NVLink. */
  nvlink_bridged_pairs?: boolean;
  /** NCCL's ring all-reduce's large-message bus bandwidth over interconnect_gb_s, a fraction (0, 1] ({@link GpuSpec.ringAllReduceEfficiency}); left out, 0.82 (H100 SXM NVLink's), assumed. */
  ring_all_reduce_efficiency?: number;
  /** The software stack vLLM runs on it: 'rocm' (AMD) or 'cuda' (NVIDIA); left out, 'rocm' with interconnect Infinity Fabric, else 'cuda' ({@link GpuSpec.platform}). */
  platform?: 'cuda' | 'rocm';
}

/**
 * The GpuSpec of a GPU the profile describes: every figure user-given, the sources saying which
 * key it came from. A peak left out stands at another, and the source says so: fp32 at
 * bf16_tflops (too fast for a card's non-tensor fp32: give fp32_tflops for an fp32 model), int8 at
 * bf16_tflops; no fp8_tflops means no fp8 tensor cores ({@link quantizedGemmPeak}). pcie_gen left
 * out is 4 (the slower host link); the interconnect left out is PCIe at that generation's x16
 * rate per direction (Gen4 32e9, Gen5 64e9 bytes/s). nvlink_bridged_pairs (the schema asks
 * interconnect NVLink with it) sets nvlinkBridgedPairs, as the table's H100 NVL and A100 PCIe 80GB
 * rows have it: the pair's link up to tp 2, PCIe x16 of pcie_gen past it ({@link tpGroupLink}).
 * `platform` left out is 'rocm' where the
 * interconnect is Infinity Fabric (AMD's, which no other vendor's card has), else CUDA.
 */
export function userGpu(f: UserGpuFields): GpuSpec {
  const given = `user-given device.gpu ${f.name}`;
  const pcieGen = f.pcie_gen ?? 4;
  const interconnect = f.interconnect ?? 'PCIe';
  const lowParts = [
    f.fp8_tflops !== undefined ? `fp8_tflops ${f.fp8_tflops}` : 'no fp8_tflops',
    f.int8_tops !== undefined ? `int8_tops ${f.int8_tops}` : 'no int8_tops: int8 GEMMs at bf16_tflops',
  ];
  return {
    name: f.name,
    bf16FlopsPerSec: f.bf16_tflops * 1e12,
    fp32FlopsPerSec: (f.fp32_tflops ?? f.bf16_tflops) * 1e12,
    fp32Source: f.fp32_tflops !== undefined ? `${given} (fp32_tflops ${f.fp32_tflops})` : `${given} (no fp32_tflops: fp32 at bf16_tflops ${f.bf16_tflops}, faster than a card's non-tensor fp32)`,
    ...(f.fp8_tflops !== undefined ? { fp8FlopsPerSec: f.fp8_tflops * 1e12 } : {}),
    int8OpsPerSec: (f.int8_tops ?? f.bf16_tflops) * 1e12,
    lowPrecisionSource: `${given} (${lowParts.join(', ')})`,
    memoryBytesPerSec: f.memory_bandwidth_gb_s * 1e9,
    memoryBytes: f.memory_gib * GIB,
    cudaMemoryGib: f.memory_gib,
    source: `${given} (bf16_tflops ${f.bf16_tflops}, memory_bandwidth_gb_s ${f.memory_bandwidth_gb_s})`,
    memorySource: `${given} (memory_gib ${f.memory_gib})`,
    pcieGen,
    interconnect,
    interconnectBytesPerSec: f.interconnect_gb_s !== undefined ? f.interconnect_gb_s * 1e9 : pcieX16BytesPerSec(pcieGen),
    interconnectSource: f.interconnect_gb_s !== undefined
      ? `${given} (interconnect ${interconnect}, interconnect_gb_s ${f.interconnect_gb_s})`
      : `${given} (${f.interconnect ? `interconnect ${interconnect}` : 'no interconnect: PCIe'}, no interconnect_gb_s: PCIe Gen${pcieGen} x16's ${pcieX16BytesPerSec(pcieGen) / 1e9} GB/s a direction assumed)`,
    ...(f.compute_capability !== undefined ? { computeCapability: f.compute_capability } : {}),
    ...(f.nvlink_multicast === true ? { nvlinkMulticast: true } : {}),
    ...(f.nvlink_bridged_pairs === true ? { nvlinkBridgedPairs: true } : {}),
    ...(f.ring_all_reduce_efficiency !== undefined ? { ringAllReduceEfficiency: f.ring_all_reduce_efficiency, ringAllReduceSource: `${given} (ring_all_reduce_efficiency ${f.ring_all_reduce_efficiency})` } : {}),
    ...((f.platform ?? (interconnect === 'Infinity Fabric' ? 'rocm' : 'cuda')) === 'rocm' ? { platform: 'rocm' as const } : {}),
    userGiven: true,
    given: { ...f },
    derived: [
      ...(f.fp32_tflops === undefined ? ['fp32' as const] : []),
      ...(f.int8_tops === undefined ? ['int8' as const] : []),
      ...(f.interconnect_gb_s === undefined ? ['interconnect' as const] : []),
    ],
  };
}

/** A GPU's name as the figures show it: "MI325X (user-given)" for one the profile describes, else the table's name. */
export function gpuLabel(gpu: Pick<GpuSpec, 'name' | 'userGiven'>): string {
  return gpu.userGiven ? `${gpu.name} (user-given)` : gpu.name;
}

/**
 * The GPU a profile's device section gives: the one it describes (device.gpu as an object, read
 * into `gpuSpec` by the profile reader), else the table's row of the name, else undefined (no
 * device.gpu, or a name off the table, which the schema refuses).
 */
export function deviceGpu(device: { gpu?: string; gpuSpec?: GpuSpec }): GpuSpec | undefined {
  return device.gpuSpec ?? (device.gpu ? gpuByName(device.gpu) : undefined);
}

/** The Infinity Fabric links from each GPU of an AMD Instinct 8-GPU node to the other seven (MI300X data sheet: 7 links). */
const INFINITY_FABRIC_LINKS = 7;

/** A link as one tensor-parallel group of a card gets it ({@link tpGroupLink}). */
export interface GroupLink {
  interconnect: GpuSpec['interconnect'];
  /** Bytes/s per GPU in one direction (SI). */
  bytesPerSec: number;
  /** Where the figure comes from, in words. */
  source: string;
  /**
   * NCCL's ring's large-message bus bandwidth over this link, a fraction of bytesPerSec, where
   * this link has its own ({@link GpuSpec.ringAllReduceEfficiency}, or PCIe past a bridged pair:
   * {@link BRIDGED_PCIE_RING_EFFICIENCY}), and where it comes from; absent: the assumed 0.82.
   */
  ring?: { efficiency: number; source: string };
}

/**
 * NCCL's ring's large-message bus bandwidth where a tensor-parallel group of NVLink-bridged
 * boards spans more than a pair and the ring crosses PCIe between the pairs, as a fraction of PCIe
 * x16's per-direction rate: 0.63. Source: NVIDIA/nccl-tests#178 (4 pairs of A100 PCIe, NV12
 * bridges, PCIe Gen4; all_reduce_perf -b 8 -e 12G): 2 GPUs (one pair) reach busbw 208 GB/s, 3
 * GPUs (a pair and a card over PCIe) "drop to 20 GBps", 20 / 32 = 0.63 of Gen4 x16. One machine's
 * figure, applied to Gen5 as well (H100 NVL): an assumption there.
 */
export const BRIDGED_PCIE_RING_EFFICIENCY = 0.63;

/**
 * The link `gpus` GPUs of one node on `gpu` get for a collective in which each GPU talks to
 * `peers` others at once (an all-reduce or all-gather over the group: gpus − 1; a pipeline stage's
 * point-to-point send: 1), where it is less than the card's whole interconnect:
 * - NVLink-bridged pairs ({@link GpuSpec.nvlinkBridgedPairs}, H100 NVL, A100 PCIe 80GB) past a pair (gpus > 2):
 *   NVML reports no NVLink between every pair, so vLLM's custom all-reduce is off
 *   (vllm/distributed/device_communicators/custom_all_reduce.py: `world_size > 2 and not
 *   fully_connected`, current_platform.is_fully_connected's nvmlDeviceGetP2PStatus NVLINK) and
 *   NCCL's ring crosses PCIe between the pairs: PCIe at the card's generation, x16 per direction
 *   (Gen5 64e9, Gen4 32e9 bytes/s, as the H100 PCIe row).
 * - Infinity Fabric (AMD Instinct: one link from each GPU to each of the other seven, each a
 *   seventh of interconnectBytesPerSec, the node's 7 links' sum): min(peers, 7) links. MI300X
 *   tensor_parallel_size 2: one link, 448e9 / 7 = 64e9 bytes/s a direction (the data sheet's
 *   "128 GB/s" a link, both directions together); tp 4: three, 192e9. vLLM on ROCm finds the mesh
 *   fully connected (platforms/rocm.py is_fully_connected: XGMI between every pair), so its custom
 *   all-reduce runs, each GPU reading its peers over their own links at once.
 * Otherwise the card's own interconnect (NVSwitch, PCIe: every GPU gets its whole link).
 */
export function tpGroupLink(gpu: GpuSpec, gpus: number, peers = gpus - 1): GroupLink {
  const own: GroupLink = {
    interconnect: gpu.interconnect,
    bytesPerSec: gpu.interconnectBytesPerSec,
    source: gpu.interconnectSource,
    ...(gpu.ringAllReduceEfficiency !== undefined ? { ring: { efficiency: gpu.ringAllReduceEfficiency, source: gpu.ringAllReduceSource ?? gpu.interconnectSource } } : {}),
  };
  if (gpu.nvlinkBridgedPairs === true && gpus > 2) {
    const rate = pcieX16BytesPerSec(gpu.pcieGen);
    return {
      interconnect: 'PCIe',
      bytesPerSec: rate,
      ring: { efficiency: BRIDGED_PCIE_RING_EFFICIENCY, source: `${BRIDGED_PCIE_RING_EFFICIENCY} of PCIe x16 past a bridged pair: 20 GB/s busbw of Gen4's 32 at 3 A100 PCIe GPUs, NVIDIA/nccl-tests#178` },
      source: `${gpu.name} boards are NVLink-bridged in pairs (${gpu.interconnectSource}); ${gpus} GPUs are not all NVLink-connected, so vLLM's custom all-reduce is off (custom_all_reduce.py: world_size > 2 and not fully_connected) and NCCL's ring crosses PCIe Gen${gpu.pcieGen} x16 between the pairs, ${rate / 1e9} GB/s a direction`,
    };
  }
  if (gpu.interconnect === 'Infinity Fabric' && peers >= 1 && peers < INFINITY_FABRIC_LINKS) {
    const per = gpu.interconnectBytesPerSec / INFINITY_FABRIC_LINKS;
    return {
      interconnect: gpu.interconnect,
      bytesPerSec: per * peers,
      source: `${peers} of each GPU's ${INFINITY_FABRIC_LINKS} Infinity Fabric links, one to each peer, ${formatGbs(per)} GB/s a direction each (${gpu.interconnectSource}: a seventh of it a link)`,
    };
  }
  return own;
}

function formatGbs(bytesPerSec: number): string {
  return String(Math.round(bytesPerSec / 1e7) / 100);
}

/**
 * A PCIe x16 link's nominal rate a direction, bytes/s, as PCI-SIG and the datasheets print it (half
 * their both-directions figure): Gen4 32 GB/s, Gen5 64, Gen6 128 (PCI-SIG PCIe 6.0: 64 GT/s,
 * "up to 256 GB/s" both directions on x16). What an all-reduce over PCIe crosses.
 */
export function pcieX16BytesPerSec(gen: 4 | 5 | 6): number {
  return gen === 6 ? 128e9 : gen === 5 ? 64e9 : 32e9;
}

/**
 * The host-to-device rate assumed for a card's PCIe x16 link, bytes/s: 55 GB/s on Gen5 and
 * 26 GB/s on Gen4, typical pinned-memory copy rates, about 87 % and 83 % of the links' 63 and
 * 31.5 GB/s per direction (32 and 16 GT/s · 16 lanes · 128/130). Gen6 by the same rule, assumed
 * (no measured copy rate found): 87 % of its 121 GB/s a direction (64 GT/s · 16 lanes / 8, less
 * its FLIT framing, 242 of every 256 bytes), 105 GB/s. An assumption, not a measurement of this
 * setup: what the step time charges for weights kept in CPU memory (device.cpu_offload_gb).
 */
export function hostLinkBytesPerSec(gpu: Pick<GpuSpec, 'pcieGen'>): number {
  return gpu.pcieGen === 6 ? 105e9 : gpu.pcieGen === 5 ? 55e9 : 26e9;
}

/**
 * NCCL's NVLink SHARP (NVLS) all-reduce's bus bandwidth on fourth-generation NVLink through
 * third-generation NVSwitch (HGX H100 / H200: 450 GB/s a direction), bytes/s by GPU count
 * ({@link GpuSpec.nvlsAllReduceBusBytesPerSec}): 8 H100 SXM, all_reduce_perf -b 2G -e 4G with
 * NCCL_ALGO=NVLS, "Busbw remains about 365-370 GBps when gpus from 2 to 4. However, Busbw increase
 * from 370 to 420, 440, 460, and 480 GBps when gpus increase from 4 to 5, 6, 7, and 8"
 * (https://github.com/NVIDIA/nccl/issues/1455); NCCL's maintainer: "allreduce uses NVLink SHARP by
 * default ... On 8 GPUs, you should reach a peak busBw of ~480GB/s (algbw ~275GB/s). You need to
 * run on larger sizes though; 256M is too small to reach peak bandwidth"
 * (https://github.com/NVIDIA/nccl-tests/issues/212), and "476GB/s looks to be in the expected range
 * for H100" (NVIDIA/nccl-tests#290). 8 H200 with NCCL's default algorithm: peak 475 GB/s
 * (NVIDIA/nccl-tests#272, NCCL 2.20.3). At 2-4 GPUs NVLS's busbw is the ring's (370, its 0.82 of
 * 450): no entry, the ring stands.
 */
export const NVLINK4_NVLS_BUS_BYTES_PER_SEC: Readonly<Partial<Record<number, number>>> = { 5: 420e9, 6: 440e9, 7: 460e9, 8: 480e9 };

/**
 * NCCL's NVLS all-reduce's latency a call on fourth-generation NVLink through NVSwitch, seconds:
 * 56.7 µs ({@link GpuSpec.nvlsAllReduceLatencyS}), the α that puts the α-β line α + 1.75 · M /
 * 480e9 (β: {@link NVLINK4_NVLS_BUS_BYTES_PER_SEC}'s peak at 8 GPUs) closest, in least squares of
 * the relative error, to a published per-size NVLS table: Azure's ND H200 v5 results (8 H200, NCCL
 * 2.20.5, all_reduce_perf in place, "NCCL AllReduce (NVLS algorithm)", Azure/AI-benchmarking-guide
 * Azure_Results/ND_H200_v5_results.md), busbw 181.94 / 240.41 / 300.91 / 368.11 / 412.45 /
 * 432.24 / 442.72 GB/s at 8 / 16 / 32 / 64 / 128 / 256 / 512 MiB (8 GiB: 479.98, the peak), i.e.
 * 1.75 · M / busbw = 80.7 / 122.1 / 195.1 / 319.0 / 569.5 / 1,086.8 / 2,122.2 µs. Closed form:
 * α = Σ (1 − b_k/t_k)/t_k / Σ 1/t_k², b_k = 1.75 · M_k / 480e9, over those seven rows: 56.73 µs
 * (the line then reads +8.2 / −3.5 / −8.2 / −5.5 / −4.1 / −4.7 / −5.1 % of them). The sizes are
 * those a serving step all-reduces past 4 MiB (an 8,192-token chunk of Llama-3.1-70B: 128 MiB;
 * Llama-3.1-405B's 16,384: 512 MiB); the 4 MiB row (138.44 GB/s, 53.0 µs) is below NCCL's band
 * and the line's 87 µs would be 64 % over it. One table, at 8 GPUs: applied at 5-7 GPUs too
 * (NCCL's own tuning model charges NVLS one latency whatever the GPU count, src/graph/tuning.cc),
 * unmeasured there. Checked apart from the fit against vLLM PR #42324's pynccl rows on 8 H100 SXM:
 * test/unit/step-time-tp.test.ts.
 */
export const NVLINK4_NVLS_LATENCY_S = 56.7e-6;

/** Where {@link NVLINK4_NVLS_LATENCY_S} comes from, in the Step time line's words. */
const NVLINK4_NVLS_LATENCY_SOURCE = "fitted to Azure's published NVLS table on 8 H200, busbw 182 / 240 / 301 / 368 / 412 GB/s at 8 / 16 / 32 / 64 / 128 MiB, Azure/AI-benchmarking-guide ND_H200_v5_results.md";

/** Every named GPU, one row each. */
export const GPUS: readonly GpuSpec[] = [
  {
    name: 'H100 SXM',
    bf16FlopsPerSec: 989e12,
    fp32FlopsPerSec: 67e12,
    fp32Source: 'NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: FP32 67 teraFLOPS)',
    fp8FlopsPerSec: 1979e12,
    int8OpsPerSec: 1979e12,
    lowPrecisionSource: 'NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: FP8 Tensor Core 3,958 TFLOPS and INT8 Tensor Core 3,958 TOPS, with sparsity)',
    memoryBytesPerSec: 3.35e12,
    memoryBytes: 80e9,
    cudaMemoryGib: 79.22,
    source: 'NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: BF16 Tensor Core 1,979 TFLOPS with sparsity, HBM3 3.35 TB/s)',
    memorySource: 'vLLM PR #10511 and #12126 logs on an H100-80G: "total_gpu_memory 79.22GiB"',
    pcieGen: 5,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 450e9,
    interconnectSource: 'NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: "Interconnect: NVIDIA NVLink: 900GB/s, PCIe Gen5: 128GB/s", both directions together)',
    computeCapability: '9.0',
    nvlinkMulticast: true,
    nvlsAllReduceBusBytesPerSec: NVLINK4_NVLS_BUS_BYTES_PER_SEC,
    nvlsAllReduceSource: 'busbw 420 / 440 / 460 / 480 GB/s at 5 / 6 / 7 / 8 H100 SXM at 2-4 GiB messages on NCCL\'s NVLS algorithm, NVIDIA/nccl#1455; ~480 on 8, NCCL\'s maintainer, NVIDIA/nccl-tests#212',
    nvlsAllReduceLatencyS: NVLINK4_NVLS_LATENCY_S,
    nvlsAllReduceLatencySource: NVLINK4_NVLS_LATENCY_SOURCE,
  },
  {
    name: 'H100 PCIe',
    bf16FlopsPerSec: 756.5e12,
    fp32FlopsPerSec: 51e12,
    fp32Source: 'NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe: FP32 51 teraFLOPS)',
    fp8FlopsPerSec: 1513e12,
    int8OpsPerSec: 1513e12,
    lowPrecisionSource: 'NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe: FP8 Tensor Core 3,026 TFLOPS and INT8 Tensor Core 3,026 TOPS, with sparsity)',
    memoryBytesPerSec: 2e12,
    memoryBytes: 80e9,
    cudaMemoryGib: 79.11,
    source: 'NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe: BF16 Tensor Core 1,513 TFLOPS with sparsity, HBM2e 2TB/s, 80GB)',
    memorySource: 'OpenXLA\'s device config of an H100 PCIe (device_description_str "NVIDIA H100 PCIe", 114 cores at 1.755 GHz), https://github.com/openxla/xla/blob/4336d12e0706168f6a382ddb231f3a83853b0657/xla/backends/gpu/target_config/specs/h100_pcie.txtpb: "device_memory_size: 84942979072", 79.11 GiB, the CUDA driver\'s total (StreamExecutor GetDeviceTotalMemory, cuDeviceTotalMem: a device query\'s). Until s48 derived as 79.2 (80 GB read as GiB less 1 %)',
    pcieGen: 5,
    interconnect: 'PCIe',
    interconnectBytesPerSec: 64e9,
    interconnectSource: 'NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe: "NVIDIA NVLink: 600GB/s, PCIe Gen5: 128GB/s", both directions together; the NVLink bridge joins pairs of cards only, so a node\'s all-reduce crosses PCIe Gen5)',
    computeCapability: '9.0',
  },
  {
    name: 'H100 NVL',
    bf16FlopsPerSec: 835.5e12,
    fp32FlopsPerSec: 60e12,
    fp32Source: 'NVIDIA H100 Tensor Core GPU datasheet (H100 NVL: FP32 60 teraFLOPS)',
    fp8FlopsPerSec: 1670.5e12,
    int8OpsPerSec: 1670.5e12,
    lowPrecisionSource: 'NVIDIA H100 Tensor Core GPU datasheet (H100 NVL: FP8 Tensor Core 3,341 TFLOPS and INT8 Tensor Core 3,341 TOPS, with sparsity)',
    memoryBytesPerSec: 3.9e12,
    memoryBytes: 94e9,
    cudaMemoryGib: 93,
    source: 'NVIDIA H100 Tensor Core GPU datasheet (H100 NVL: BF16 Tensor Core 1,671 TFLOPS with sparsity, HBM3 3.9TB/s, 94GB)',
    memorySource: 'PyTorch out-of-memory error on a RunPod H100 NVL 94GB, whose total is the cudaMemGetInfo total vLLM logs: "GPU 0 has a total capacity of 93.00 GiB", https://github.com/ali-vilab/VACE/issues/56',
    pcieGen: 5,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 300e9,
    interconnectSource: 'NVIDIA H100 Tensor Core GPU datasheet (H100 NVL: "NVIDIA NVLink: 600GB/s, PCIe Gen5: 128GB/s", both directions together): NVL boards are sold as NVLink-bridged pairs: a pair\'s link; tensor parallelism past a pair crosses PCIe Gen5 (tpGroupLink)',
    // Two H100 PCIe over their NVLink bridge, all_reduce_perf -b 1G -e 8G -g 2: busbw 115.4-116.3 GB/s at 1-4 GiB, 116 / 300 = 0.39
    // (the reporter's figures; the thread has no maintainer's answer). The H100 NVL's bridge is the same 600 GB/s.
    ringAllReduceEfficiency: 0.39,
    ringAllReduceSource: "0.39 of the bridge's 300 GB/s a direction: busbw 116 GB/s at 1-4 GiB on two NVLink-bridged H100 PCIe, NVIDIA/nccl-tests#194 (NVIDIA/nccl#1161)",
    computeCapability: '9.0',
    nvlinkBridgedPairs: true,
  },
  {
    name: 'H200',
    bf16FlopsPerSec: 989e12,
    fp32FlopsPerSec: 67e12,
    fp32Source: 'NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: FP32 67 TFLOPS)',
    fp8FlopsPerSec: 1979e12,
    int8OpsPerSec: 1979e12,
    lowPrecisionSource: 'NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: FP8 Tensor Core 3,958 TFLOPS and INT8 Tensor Core 3,958 TOPS, with sparsity)',
    memoryBytesPerSec: 4.8e12,
    memoryBytes: 141e9,
    cudaMemoryGib: 139.81,
    source: 'NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: BF16 Tensor Core 1,979 TFLOPS with sparsity, HBM3e 4.8 TB/s, 141 GB)',
    memorySource: 'vLLM log on an H200: "total_gpu_memory (139.81GiB) x gpu_memory_utilization (0.85) = 118.84GiB"',
    pcieGen: 5,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 450e9,
    interconnectSource: 'NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: "Interconnect: NVIDIA NVLink: 900GB/s, PCIe Gen5: 128GB/s", both directions together)',
    computeCapability: '9.0',
    nvlinkMulticast: true,
    // The H100 SXM's NVLink 4 and NVSwitch: 8 H200 measured 475 GB/s busbw (nccl-tests#272), H100's 480 within 1 %; 5-7 GPUs H100's.
    nvlsAllReduceBusBytesPerSec: NVLINK4_NVLS_BUS_BYTES_PER_SEC,
    nvlsAllReduceSource: 'H100 SXM\'s busbw on the same NVLink 4 and NVSwitch, 420 / 440 / 460 / 480 GB/s at 5 / 6 / 7 / 8 GPUs, NVIDIA/nccl#1455; 8 H200 reach 475 GB/s, NVIDIA/nccl-tests#272',
    nvlsAllReduceLatencyS: NVLINK4_NVLS_LATENCY_S,
    nvlsAllReduceLatencySource: NVLINK4_NVLS_LATENCY_SOURCE,
  },
  {
    name: 'H20',
    bf16FlopsPerSec: 148e12,
    fp32FlopsPerSec: 44e12,
    fp32Source: 'NVIDIA HGX H20 specifications as its resellers publish them, no datasheet on nvidia.com (FP32 44 TFLOPS)',
    fp8FlopsPerSec: 296e12,
    int8OpsPerSec: 296e12,
    lowPrecisionSource: 'NVIDIA HGX H20 specifications as its resellers publish them, no datasheet on nvidia.com (FP8 Tensor Core 296 TFLOPS and INT8 Tensor Core 296 TOPS, dense)',
    memoryBytesPerSec: 4.0e12,
    memoryBytes: 96e9,
    cudaMemoryGib: 95.005,
    source: 'NVIDIA HGX H20 specifications as its resellers publish them, no datasheet on nvidia.com (BF16 Tensor Core 148 TFLOPS dense, HBM3 4.0 TB/s, 96 GB)',
    // PyTorch prints total_memory as the driver's total in whole MiB, rounded down: 97,285 MiB is [95.0049, 95.0059) GiB.
    memorySource: 'PyTorch device query on an H20 in Ant Group\'s flood engine, https://github.com/alipay/PainlessInferenceAcceleration/blob/2dc6e96a8878635305dcf40b4c7321e58bbe6877/flood/flood/ops/seg_attn.py: "_CudaDeviceProperties(name=\'NVIDIA H20\', major=9, minor=0, total_memory=97285MB, multi_processor_count=78)", 97,285 MiB = 95.005 GiB (the driver\'s total, cudaGetDeviceProperties totalGlobalMem, the total torch.cuda.mem_get_info and vLLM\'s total_gpu_memory read); a GH200\'s 96 GB of the same HBM3 reports "GPU 0 has a total capacity of 95.00 GiB" (NVIDIA technical blog, https://developer.nvidia.com/blog/accelerate-large-scale-llm-inference-and-kv-cache-offload-with-cpu-gpu-memory-sharing/)',
    pcieGen: 5,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 450e9,
    interconnectSource: 'NVIDIA HGX H20 specifications as its resellers publish them (NVLink 900GB/s, both directions together; PCIe Gen5 x16 128GB/s)',
    // Hopper, compute capability 9.0, on the HGX board's NVSwitch: vLLM's symmetric-memory all-reduce runs as on an H100 SXM.
    computeCapability: '9.0',
    nvlinkMulticast: true,
  },
  {
    name: 'B200',
    bf16FlopsPerSec: 2.25e15,
    fp32FlopsPerSec: 75e12,
    fp32Source: 'NVIDIA HGX B200 specifications (8 GPUs: FP32 600 TFLOPS)',
    fp8FlopsPerSec: 4.5e15,
    int8OpsPerSec: 4.5e15,
    lowPrecisionSource: 'NVIDIA HGX B200 specifications (8 GPUs: FP8 Tensor Core 72 PFLOPS and INT8 Tensor Core 72 POPS, with sparsity)',
    memoryBytesPerSec: 8e12,
    memoryBytes: 180e9,
    cudaMemoryGib: 178.35,
    source: 'NVIDIA HGX B200 specifications (8 GPUs: FP16/BF16 Tensor Core 36 PFLOPS with sparsity, 1,440 GB HBM3e at 64 TB/s: 180 GB and 8 TB/s a GPU; a driver query reads a 7,680-bit bus, 7.67 TB/s, pytorch/ao#4002)',
    memorySource: 'CUDA device query on a B200 in https://github.com/pytorch/ao/pull/4002: "Total Global Memory: 178.35 GB" (GiB), the total PyTorch out-of-memory errors on B200s print too ("GPU 0 has a total capacity of 178.35 GiB")',
    // The B200 itself has a Gen6 port; the HGX B200 boards' hosts (DGX B200: Xeon Platinum 8570) run it at Gen5.
    pcieGen: 5,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 900e9,
    interconnectSource: 'NVIDIA HGX B200 specifications (fifth-generation NVLink, NVSwitch GPU-to-GPU bandwidth 1.8TB/s, both directions together)',
    // Blackwell, compute capability 10.0, on the HGX board's NVSwitch (NVLink SHARP): vLLM's "10.0" symmetric-memory thresholds.
    computeCapability: '10.0',
    nvlinkMulticast: true,
  },
  {
    name: 'A100 80GB',
    bf16FlopsPerSec: 312e12,
    fp32FlopsPerSec: 19.5e12,
    fp32Source: 'NVIDIA A100 Tensor Core GPU datasheet (FP32 19.5 TFLOPS)',
    int8OpsPerSec: 624e12,
    lowPrecisionSource: 'NVIDIA A100 Tensor Core GPU datasheet (INT8 Tensor Core 624 TOPS dense, 1,248 with sparsity; no FP8)',
    memoryBytesPerSec: 2.039e12,
    memoryBytes: 80e9,
    cudaMemoryGib: 79.15,
    source: 'NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM: BF16 Tensor Core 312 TFLOPS dense, HBM2e 2,039 GB/s)',
    memorySource: 'vLLM start-up logs on A100 80GB: "total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.23GiB"',
    pcieGen: 4,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 300e9,
    interconnectSource: 'NVIDIA A100 Tensor Core GPU datasheet (A100 SXM: "NVLink: 600GB/s", both directions together)',
  },
  {
    name: 'A100 PCIe 80GB',
    bf16FlopsPerSec: 312e12,
    fp32FlopsPerSec: 19.5e12,
    fp32Source: 'NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe: FP32 19.5 TFLOPS)',
    int8OpsPerSec: 624e12,
    lowPrecisionSource: 'NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe: INT8 Tensor Core 624 TOPS dense, 1,248 with sparsity; no FP8)',
    memoryBytesPerSec: 1.935e12,
    memoryBytes: 80e9,
    cudaMemoryGib: 79.21,
    source: 'NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe: BF16 Tensor Core 312 TFLOPS dense, HBM2e 1,935 GB/s, max TDP 300W)',
    // No vLLM total_gpu_memory log of this card found; TensorFlow's device query prints the driver's total
    // (cuDeviceTotalMem, the figure torch.cuda.get_device_properties().total_memory reads too).
    memorySource: 'TensorFlow start-up log on four A100 80GB PCIe cards: "name: NVIDIA A100 80GB PCIe computeCapability: 8.0 ... deviceMemorySize: 79.21GiB" (the driver\'s total, cuDeviceTotalMem), https://github.com/NVIDIA/DeepLearningExamples/issues/1262',
    pcieGen: 4,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 300e9,
    interconnectSource: 'NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe: "NVIDIA NVLink Bridge for 2 GPUs: 600GB/s, PCIe Gen4: 64GB/s", both directions together, "PCIe GPUs via NVLink Bridge for up to two GPUs"): a bridged pair\'s link; tensor parallelism past a pair crosses PCIe Gen4 (tpGroupLink)',
    // A pair of A100 PCIe over NV12 bridges, all_reduce_perf -b 8 -e 12G -t 2: "Bus_BW: 208 GBps", 208 / 300 = 0.69.
    ringAllReduceEfficiency: 0.69,
    ringAllReduceSource: "0.69 of the bridge's 300 GB/s a direction: busbw 208 GB/s on a pair of NV12-bridged A100 PCIe, NVIDIA/nccl-tests#178",
    nvlinkBridgedPairs: true,
  },
  {
    name: 'A100 40GB',
    bf16FlopsPerSec: 312e12,
    fp32FlopsPerSec: 19.5e12,
    fp32Source: 'NVIDIA A100 Tensor Core GPU datasheet (FP32 19.5 TFLOPS)',
    int8OpsPerSec: 624e12,
    lowPrecisionSource: 'NVIDIA A100 Tensor Core GPU datasheet (INT8 Tensor Core 624 TOPS dense, 1,248 with sparsity; no FP8)',
    memoryBytesPerSec: 1.555e12,
    memoryBytes: 40e9,
    cudaMemoryGib: 39.49,
    source: 'NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM: BF16 Tensor Core 312 TFLOPS dense, HBM2 1,555 GB/s)',
    memorySource: 'vLLM logs on A100 40GB: "total_gpu_memory (39.49GiB) x gpu_memory_utilization (0.90) = 35.55GiB" (39.39 to 39.56 across drivers)',
    pcieGen: 4,
    interconnect: 'NVLink',
    interconnectBytesPerSec: 300e9,
    interconnectSource: 'NVIDIA A100 Tensor Core GPU datasheet (A100 SXM: "NVLink: 600GB/s", both directions together)',
  },
  {
    name: 'L40S',
    bf16FlopsPerSec: 362.05e12,
    fp32FlopsPerSec: 91.6e12,
    fp32Source: 'NVIDIA L40S datasheet (FP32 91.6 TFLOPS)',
    fp8FlopsPerSec: 733e12,
    int8OpsPerSec: 733e12,
    lowPrecisionSource: 'NVIDIA L40S datasheet (FP8 Tensor Core 1,466 TFLOPS and INT8 Tensor 1,466 TOPS, with sparsity)',
    memoryBytesPerSec: 864e9,
    memoryBytes: 48e9,
    cudaMemoryGib: 44.31,
    source: 'NVIDIA L40S datasheet (BF16 Tensor Core 733 TFLOPS with sparsity, GDDR6 864 GB/s, 48 GB)',
    memorySource: 'vLLM 0.7.2 log on an L40S, https://github.com/vllm-project/vllm/issues/15196: "total_gpu_memory (44.31GiB) x gpu_memory_utilization (0.45) = 19.94GiB" (44.39 GiB in a vLLM 0.6.6 log on an AWS g6e.48xlarge\'s L40S, github.com/gnosia93/vlm-distillation; nvidia-smi shows 46,068 MiB)',
    pcieGen: 4,
    interconnect: 'PCIe',
    interconnectBytesPerSec: 32e9,
    interconnectSource: 'NVIDIA L40S datasheet ("Interconnect Interface: PCIe Gen4 x16: 64GB/s bidirectional", "NVLink Support: No")',
  },
  {
    name: 'L4',
    bf16FlopsPerSec: 121e12,
    fp32FlopsPerSec: 30.3e12,
    fp32Source: 'NVIDIA L4 Tensor Core GPU datasheet (FP32 30.3 teraFLOPs)',
    fp8FlopsPerSec: 242.5e12,
    int8OpsPerSec: 242.5e12,
    lowPrecisionSource: 'NVIDIA L4 Tensor Core GPU datasheet (FP8 Tensor Core 485 teraFLOPS and INT8 Tensor Core 485 TOPS, with sparsity)',
    memoryBytesPerSec: 300e9,
    memoryBytes: 24e9,
    cudaMemoryGib: 21.95,
    source: 'NVIDIA L4 Tensor Core GPU datasheet (BF16 Tensor Core 242 teraFLOPS with sparsity, GDDR6 300GB/s, 24GB)',
    memorySource: 'CUDA deviceQuery on an L4 (driver 550.90.07), https://github.com/thamada/nvidia-smi/blob/b09ef139265ffc7e3c78006346981de8e4d70499/gls/L4_deviceQuery.py: "Total amount of global memory: 22478 MBytes (23570219008 bytes)", 21.95 GiB; the same card\'s nvidia-smi -q (gls/L4_smi.py) reads FB Memory Total 23034 MiB, Reserved 556 MiB: the 22,478 MiB left is what CUDA hands out',
    pcieGen: 4,
    interconnect: 'PCIe',
    interconnectBytesPerSec: 32e9,
    interconnectSource: 'NVIDIA L4 Tensor Core GPU datasheet ("Interconnect: PCIe Gen4 x16 64GB/s", both directions together; no NVLink)',
  },
  {
    name: 'RTX 4090',
    bf16FlopsPerSec: 165.2e12,
    fp32FlopsPerSec: 82.6e12,
    fp32Source: 'NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090: Peak FP32 TFLOPS (non-Tensor) 82.6)',
    fp8FlopsPerSec: 330.3e12,
    int8OpsPerSec: 660.6e12,
    lowPrecisionSource: 'NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090: Peak FP8 Tensor TFLOPS with FP32 Accumulate 330.3 dense, Peak INT8 Tensor TOPS 660.6 dense)',
    memoryBytesPerSec: 1008e9,
    memoryBytes: 24e9,
    cudaMemoryGib: 23.64,
    source: 'NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090: BF16 Tensor TFLOPS with FP32 accumulate 165.2 dense, GDDR6X 1,008 GB/s)',
    memorySource: 'PyTorch out-of-memory errors on RTX 4090s, whose total is the same cudaMemGetInfo total vLLM logs: "GPU 0 has a total capacity of 23.64 GiB", https://github.com/ali-vilab/VGen/issues/104 and https://github.com/3DTopia/Phidias-Diffusion/issues/8 (23.61 and 23.68 GiB in others: pinokiofactory/flux-webui#11, zai-org/CogVideo#36; nvidia-smi shows 24,564 MiB, https://github.com/vllm-project/vllm/issues/7553)',
    pcieGen: 4,
    interconnect: 'PCIe, no P2P',
    interconnectBytesPerSec: 32e9,
    interconnectSource: 'NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090: PCIe Gen 4 x16, 64 GB/s both directions together; no NVLink); no peer access between RTX 4090s ("peer access is not supported between these two devices", https://github.com/sgl-project/sglang/issues/4814; NVIDIA/nccl#1127)',
  },
  {
    name: 'A10',
    bf16FlopsPerSec: 125e12,
    fp32FlopsPerSec: 31.2e12,
    fp32Source: 'NVIDIA A10 Tensor Core GPU datasheet (FP32 31.2 TFLOPS)',
    int8OpsPerSec: 250e12,
    lowPrecisionSource: 'NVIDIA A10 Tensor Core GPU datasheet (INT8 Tensor Core 250 TOPS dense, 500 with sparsity; no FP8)',
    memoryBytesPerSec: 600e9,
    memoryBytes: 24e9,
    cudaMemoryGib: 22.07,
    source: 'NVIDIA A10 Tensor Core GPU datasheet (BF16 Tensor Core 125 TFLOPS dense, 250 with sparsity; GDDR6 600 GB/s, 24 GB)',
    memorySource: 'vLLM log on an OCI VM.GPU.A10 shape (oracle-samples/oci-data-science-ai-samples, AI Quick Actions troubleshooting): "total_gpu_memory (22.07GiB)"',
    pcieGen: 4,
    interconnect: 'PCIe',
    interconnectBytesPerSec: 32e9,
    interconnectSource: 'NVIDIA A10 Tensor Core GPU datasheet ("PCIe Gen4: 64GB/s", both directions together; no NVLink)',
  },
  {
    name: 'MI300X',
    bf16FlopsPerSec: 1307.4e12,
    fp32FlopsPerSec: 163.4e12,
    fp32Source: 'AMD Instinct MI300X data sheet (Peak Single Precision (FP32) Vector 163.4 TFLOPs)',
    fp8FlopsPerSec: 2614.9e12,
    int8OpsPerSec: 2614.9e12,
    lowPrecisionSource: 'AMD Instinct MI300X data sheet (Peak FP8 2,614.9 TFLOPs and INT8 2,614.9 TOPs dense, 5,229.8 with sparsity; fp8 is e4m3fnuz on this card)',
    memoryBytesPerSec: 5.3e12,
    memoryBytes: 192e9,
    cudaMemoryGib: 191.98,
    source: 'AMD Instinct MI300X data sheet (Peak bfloat16 1,307.4 TFLOPs dense, 2,614.9 with sparsity; 192 GB HBM3, 5.3 TB/s)',
    memorySource: 'PyTorch (ROCm) out-of-memory error on an 8 × MI300X node, whose total is hipMemGetInfo\'s, the total_gpu_memory vLLM logs on ROCm: "GPU 0 has a total capacity of 191.98 GiB", https://github.com/vllm-project/vllm/issues/7951',
    pcieGen: 5,
    interconnect: 'Infinity Fabric',
    interconnectBytesPerSec: 448e9,
    interconnectSource: 'AMD Instinct MI300X data sheet (7 AMD Infinity Fabric links at 128 GB/s each, 896 GB/s aggregate, both directions together): an 8-GPU node\'s all-reduce uses all seven links, a smaller group one a peer (tpGroupLink)',
    platform: 'rocm',
  },
];

/** The GPU the step-time model assumes when the profile names none. */
export const DEFAULT_GPU = 'H100 SXM';

/** The table row named `name` (exact, as the schema's enum), or undefined. */
export function gpuByName(name: string): GpuSpec | undefined {
  return GPUS.find((g) => g.name === name);
}

/** A compute peak of a card for a dtype: FLOP/s, its name in the step-time lines ("bf16 peak"), and where it is copied from. */
export interface ComputePeak {
  flopsPerSec: number;
  name: string;
  source: string;
}

/**
 * The peak a model's matmuls in `dtype` run at on `gpu`: bf16 and fp16 at the dense bf16
 * tensor-core peak (fp16 with fp32 accumulate is the same rate on every card in the table), named
 * by the dtype they run in ("fp16 peak" for an fp16 model: an AWQ / GPTQ checkpoint's float16); fp32
 * at the non-tensor fp32 peak, since TF32 tensor-core matmuls are off unless asked for (PyTorch
 * docs, notes/cuda "TensorFloat-32 (TF32) on Ampere (and later) devices": the matmul flag defaults
 * to False since 1.12) and the profile has no key to ask for them.
 */
export function computePeak(gpu: GpuSpec, dtype: 'fp32' | 'fp16' | 'bf16'): ComputePeak {
  if (dtype === 'fp32') {
    return { flopsPerSec: gpu.fp32FlopsPerSec, name: 'fp32 peak', source: `${gpu.fp32Source}; non-tensor: TF32 matmuls are off by default (PyTorch >= 1.12)` };
  }
  return { flopsPerSec: gpu.bf16FlopsPerSec, name: `${dtype} peak`, source: dtype === 'fp16' ? `${gpu.source}; fp16 at the bf16 tensor-core rate` : gpu.source };
}

/**
 * The peak the quantized linear layers' GEMMs run at: a W8A8 checkpoint's (QuantizationSpec
 * activations) at the card's dense fp8 or int8 tensor-core peak, as vLLM runs them (fp8:
 * cutlass_scaled_mm / w8a8_block_fp8_matmul on compute capability >= 8.9; int8: cutlass_scaled_mm);
 * null where that peak does not apply (weight-only formats: the activation dtype's peak, computePeak).
 * On a card without fp8 tensor cores (A100, A10) vLLM's Fp8LinearMethod runs fp8 weights through
 * its weight-only Marlin kernel (use_marlin when the device has no capability 8.9): null too, with
 * `note` saying so.
 */
export function quantizedGemmPeak(gpu: GpuSpec, activations: 'fp8' | 'int8' | undefined): { peak: ComputePeak | null; note?: string } {
  if (activations === 'int8') return { peak: { flopsPerSec: gpu.int8OpsPerSec, name: 'int8 peak', source: gpu.lowPrecisionSource } };
  if (activations !== 'fp8') return { peak: null };
  if (gpu.fp8FlopsPerSec === undefined) {
    const why = gpu.userGiven ? `device.gpu ${gpu.name} gives no fp8_tflops, so it is taken to have no fp8 tensor cores` : `${gpu.name} has no fp8 tensor cores`;
    // An AMD card (ROCm: the table's MI300X, a described one by its platform key or Infinity Fabric): vLLM turns Marlin off there (s42 newcomer 11: the note named it).
    if (gpu.platform === 'rocm') {
      return { peak: null, note: `${why}: vLLM on ROCm has no weight-only fp8 path (its Fp8LinearMethod turns the CUDA Marlin kernel off there: vllm/model_executor/layers/quantization/fp8.py), so their GEMMs are timed at the activation dtype's (bf16 / fp16) peak, as if the weights were dequantized: an assumption (give fp8_tflops for a card with fp8 matrix cores)` };
    }
    return { peak: null, note: `${why}: vLLM runs the fp8 weights as weight-only (Marlin, dequantized to the activation dtype), so their GEMMs are timed at the activation dtype's (bf16 / fp16) peak` };
  }
  return { peak: { flopsPerSec: gpu.fp8FlopsPerSec, name: 'fp8 peak', source: gpu.lowPrecisionSource } };
}

/**
 * Device memory of a card as a serving engine sees it: the CUDA total (cudaMemoryGib), in bytes;
 * with where it comes from (the table's logged total, or the user's own).
 */
export function gpuMemory(gpu: GpuSpec): { bytes: number; source: string } {
  const how = gpu.userGiven ? 'user-given' : 'as CUDA reports it';
  return { bytes: Math.floor(gpu.cudaMemoryGib * GIB), source: `device.gpu ${gpu.name}, ${gpu.cudaMemoryGib} GiB ${how}` };
}
