// The onnxruntime peer computes the same attention as the kernels (same masks and scale), so
// its timings are a fair race: checked against the fp64 reference on an odd shape.
import { strict as assert } from 'node:assert';
import { after, describe, it } from 'node:test';

import { referenceAttention } from '../../native/kernels';
import { loadOrtPeer, type OrtPeer } from '../../runner/peers/onnxruntime';

function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 16807) % 2147483647;
    out[i] = s / 2147483647 - 0.5;
  }
  return out;
}

describe('onnxruntime MultiHeadAttention peer', () => {
  let peer: OrtPeer | null = null;
  after(async () => peer?.close());

  for (const causal of [false, true]) {
    it(`matches the fp64 reference (B=2, N=37, H=3, D=16, causal=${causal})`, async (t) => {
      if (!peer) {
        const load = await loadOrtPeer(1);
        if (!load.ok) {
          t.skip(load.reason);
          return;
        }
        peer = load.peer;
      }
      const [b, n, h, d] = [2, 37, 3, 16];
      const q = values(b * n * h * d, 1);
      const k = values(b * n * h * d, 2);
      const v = values(b * n * h * d, 3);
      const o = await peer.run({ batch: b, seqLenQ: n, seqLenK: n, numHeads: h, headDim: d, causal }, { q, k, v });
      const ref = await referenceAttention({ q, k, v, batch: b, seqLenQ: n, seqLenK: n, numHeads: h, numKvHeads: h, headDim: d, causal });
      let maxErr = 0;
      for (let i = 0; i < o.length; i++) maxErr = Math.max(maxErr, Math.abs(o[i]! - ref.o[i]!));
      assert.ok(maxErr < 1e-5, `max |O_ort − O_ref| = ${maxErr}`);
    });
  }

  it('rejects inputs whose length does not match the shape, naming the tensor', async (t) => {
    const load = await loadOrtPeer(1);
    if (!load.ok) {
      t.skip(load.reason);
      return;
    }
    await assert.rejects(
      load.peer.run({ batch: 1, seqLenQ: 4, seqLenK: 4, numHeads: 2, headDim: 8, causal: false }, { q: new Float32Array(64), k: new Float32Array(63), v: new Float32Array(64) }),
      (e: unknown) => e instanceof RangeError && /\bk must hold/.test(e.message),
    );
    await load.peer.close();
  });
});
