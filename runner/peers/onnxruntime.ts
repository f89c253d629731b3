/**
 * onnxruntime-node's CPU attention as an outside peer of the kernel benchmark: the contrib op
 * com.microsoft MultiHeadAttention (fp32), in a one-node model encoded in JS with onnx-proto.
 *
 * Semantics match flashForward on the shapes the benchmark uses: Q [B, N_q, H·D], K and V
 * [B, N_k, H·D] (the NHD layout with heads flattened), scale 1/√D, `unidirectional = 1` for
 * causal (key j visible to query i iff j ≤ i when N_q = N_k). MultiHeadAttention needs as many
 * K/V heads as query heads (no GQA without copying K/V).
 *
 * Not a decode peer: MultiHeadAttention reads one contiguous K/V per sequence (no block table)
 * and GroupQueryAttention copies the KV cache out on every step (DECODE_NOTE); its causal path
 * also runs every masked block (as slow as non-causal).
 *
 * onnxruntime-node is a devDependency installed without its install script (that script only
 * fetches a CUDA add-on; the CPU library ships inside the npm package). Loading is lazy and never
 * throws: loadOrtPeer() says why the peer is missing instead.
 */

/** Why there is no onnxruntime decode figure (printed beside every decode case). */
export const DECODE_NOTE =
  'no onnxruntime decode peer: MultiHeadAttention has no paged KV (no block table) and needs H_kv = H, ' +
  'and GroupQueryAttention copies the whole KV cache out on every decode step';

/** Said of the causal figures: where the peer's time comes from. */
export const CAUSAL_NOTE =
  'onnxruntime MultiHeadAttention (unidirectional=1) and GroupQueryAttention do not skip fully masked blocks';

/** One MultiHeadAttention problem: K/V have numHeads heads too. */
export interface MhaShape {
  batch: number;
  seqLenQ: number;
  seqLenK: number;
  numHeads: number;
  headDim: number;
  causal: boolean;
}

/** Inputs in NHD layout, fp32: q [B, N_q, H, D], k and v [B, N_k, H, D]. */
export interface MhaInputs {
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
}

export interface OrtPeer {
  /** "onnxruntime-node 1.30.0". */
  readonly name: string;
  /** intra-op threads of every session. */
  readonly threads: number;
  /** Runs MultiHeadAttention once; O fp32 [B, N_q, H, D]. */
  run(shape: MhaShape, inputs: MhaInputs): Promise<Float32Array>;
  /**
   * Wall time of `warmup` untimed then timed session runs until minReps and minTimeMs are both
   * met, or maxTimeMs has passed (at least one timed run); nanoseconds per run. cpuNs: the
   * process CPU time (user + system, all threads: process.cpuUsage) of the same runs, as our
   * kernels' TimingResult.cpuNs.
   */
  time(shape: MhaShape, inputs: MhaInputs, timing: PeerTiming): Promise<{ samplesNs: number[]; cpuNs: number[] }>;
  /** Releases every session. */
  close(): Promise<void>;
}

export interface PeerTiming {
  warmup: number;
  minReps: number;
  minTimeMs: number;
  maxTimeMs: number;
}

export type OrtPeerLoad = { ok: true; peer: OrtPeer } | { ok: false; reason: string };

type Ort = typeof import('onnxruntime-node');
type Session = import('onnxruntime-node').InferenceSession;

/** The one-node model for `numHeads` heads; batch and lengths are symbolic, so one session serves all. */
async function mhaModel(numHeads: number, headDim: number, causal: boolean): Promise<Uint8Array> {
  const mod: typeof import('onnx-proto') & { default?: typeof import('onnx-proto') } = await import('onnx-proto');
  const onnx = mod.onnx ?? mod.default!.onnx; // CommonJS package: named export or default, by loader
  const hidden = numHeads * headDim;
  const valueInfo = (name: string, len: string) =>
    onnx.ValueInfoProto.create({
      name,
      type: {
        tensorType: {
          elemType: onnx.TensorProto.DataType.FLOAT,
          shape: { dim: [{ dimParam: 'batch' }, { dimParam: len }, { dimValue: hidden }] },
        },
      },
    });
  const node = onnx.NodeProto.create({
    opType: 'MultiHeadAttention',
    domain: 'com.microsoft',
    input: ['query', 'key', 'value'],
    output: ['output'],
    attribute: [
      onnx.AttributeProto.create({ name: 'num_heads', type: onnx.AttributeProto.AttributeType.INT, i: numHeads }),
      onnx.AttributeProto.create({ name: 'unidirectional', type: onnx.AttributeProto.AttributeType.INT, i: causal ? 1 : 0 }),
    ],
  });
  const graph = onnx.GraphProto.create({
    name: 'attnscope_mha',
    node: [node],
    input: [valueInfo('query', 'seq_q'), valueInfo('key', 'seq_k'), valueInfo('value', 'seq_k')],
    output: [valueInfo('output', 'seq_q')],
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'attnscope',
    opsetImport: [
      { domain: '', version: 17 },
      { domain: 'com.microsoft', version: 1 },
    ],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

class OrtMhaPeer implements OrtPeer {
  readonly name: string;
  private readonly sessions = new Map<string, Promise<Session>>();

  constructor(
    private readonly ort: Ort,
    readonly threads: number,
  ) {
    this.name = `onnxruntime-node ${ort.env.versions?.node ?? 'unknown version'}`;
  }

  private session(shape: MhaShape): Promise<Session> {
    const key = `${shape.numHeads}x${shape.headDim}${shape.causal ? 'c' : ''}`;
    let s = this.sessions.get(key);
    if (!s) {
      s = mhaModel(shape.numHeads, shape.headDim, shape.causal).then((bytes) =>
        this.ort.InferenceSession.create(bytes, {
          executionProviders: ['cpu'],
          intraOpNumThreads: this.threads,
          interOpNumThreads: 1,
          graphOptimizationLevel: 'all',
          // Idle intra-op threads sleep instead of spinning (ORT's default spins), so the
          // process CPU time of a run is the peer's work, as it is for our kernels' pool.
          extra: { session: { intra_op: { allow_spinning: '0' } } },
        }),
      );
      this.sessions.set(key, s);
    }
    return s;
  }

  private feeds(shape: MhaShape, inputs: MhaInputs): Record<string, import('onnxruntime-node').Tensor> {
    const hidden = shape.numHeads * shape.headDim;
    const tensor = (data: Float32Array, len: number, name: string) => {
      if (data.length !== shape.batch * len * hidden) {
        throw new RangeError(`${name} must hold batch·${name === 'q' ? 'seqLenQ' : 'seqLenK'}·numHeads·headDim = ${shape.batch * len * hidden} values, got ${data.length}`);
      }
      return new this.ort.Tensor('float32', data, [shape.batch, len, hidden]);
    };
    return {
      query: tensor(inputs.q, shape.seqLenQ, 'q'),
      key: tensor(inputs.k, shape.seqLenK, 'k'),
      value: tensor(inputs.v, shape.seqLenK, 'v'),
    };
  }

  async run(shape: MhaShape, inputs: MhaInputs): Promise<Float32Array> {
    const session = await this.session(shape);
    const out = await session.run(this.feeds(shape, inputs));
    return out.output!.data as Float32Array;
  }

  async time(shape: MhaShape, inputs: MhaInputs, timing: PeerTiming): Promise<{ samplesNs: number[]; cpuNs: number[] }> {
    const session = await this.session(shape);
    const feeds = this.feeds(shape, inputs);
    for (let i = 0; i < timing.warmup; i++) await session.run(feeds);
    const samplesNs: number[] = [];
    const cpuNs: number[] = [];
    const start = process.hrtime.bigint();
    const elapsedMs = () => Number(process.hrtime.bigint() - start) / 1e6;
    do {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      samplesNs.push(Number(process.hrtime.bigint() - t0));
      const c = process.cpuUsage(c0);
      cpuNs.push((c.user + c.system) * 1000);
    } while ((samplesNs.length < timing.minReps || elapsedMs() < timing.minTimeMs) && elapsedMs() < timing.maxTimeMs);
    return { samplesNs, cpuNs };
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) await (await s).release();
    this.sessions.clear();
  }
}

/**
 * Loads onnxruntime-node and checks that a MultiHeadAttention session can be created on the CPU.
 * @param threads intra-op threads (the kernels' thread count, for a fair race).
 * @returns the peer, or why it is unavailable (package missing, native library failing to load,
 *   the contrib op missing from this build).
 */
export async function loadOrtPeer(threads: number): Promise<OrtPeerLoad> {
  let ort: Ort;
  try {
    const mod: Ort & { default?: Ort } = await import('onnxruntime-node');
    ort = mod.InferenceSession ? mod : mod.default!;
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0];
    return {
      ok: false,
      reason: /Cannot find (module|package) '(onnxruntime-node|onnx-proto)'/.test(msg ?? '')
        ? 'onnxruntime-node is not installed (a devDependency: run `ONNXRUNTIME_NODE_INSTALL=skip npm install`)'
        : `onnxruntime-node failed to load: ${msg}`,
    };
  }
  const peer = new OrtMhaPeer(ort, threads);
  try {
    const shape: MhaShape = { batch: 1, seqLenQ: 2, seqLenK: 2, numHeads: 1, headDim: 4, causal: false };
    await peer.run(shape, { q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8) });
  } catch (e) {
    return { ok: false, reason: `onnxruntime-node loaded but MultiHeadAttention did not run: ${(e as Error).message.split('\n')[0]}` };
  }
  return { ok: true, peer };
}
