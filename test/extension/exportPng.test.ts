/**
 * Export PNG's notice (extension/exportRun.ts pngSavedMessage, shown by extension/dashboard.ts
 * savePng with Open and Reveal in Explorer): where the file went and its size (s48 newcomer-ed 15:
 * the PNG was written and nothing said so).
 */
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { pngSavedMessage, pngSize } from '../../extension/exportRun';

/** A real 1,200 × 1,868 PNG (the newcomer's export's size), built here chunk by chunk (PNG spec §5, §11.2.2); CRCs left 0: pngSize reads IHDR only. */
function png(width: number, height: number): Buffer {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const chunk = (type: string, data: Buffer) => Buffer.concat([u32(data.length), Buffer.from(type, 'latin1'), data, u32(0)]);
  const ihdr = Buffer.concat([u32(width), u32(height), Buffer.from([8, 0, 0, 0, 0])]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(height))), chunk('IEND', Buffer.alloc(0))]);
}

describe('Export PNG notice', () => {
  it('says where the PNG was saved and its size in pixels', () => {
    const image = png(1200, 1868);
    assert.deepEqual(pngSize(image), { width: 1200, height: 1868 });
    assert.equal(pngSavedMessage('llama-3.1-8b · llama-3.1-8b.attn.yaml · full', 'exports/llama-3.1-8b.png', image), 'AttnScope: saved the PNG of llama-3.1-8b · llama-3.1-8b.attn.yaml · full (1,200 × 1,868 px) to exports/llama-3.1-8b.png.');
  });

  it('bytes that are no PNG: no size, the path still said', () => {
    assert.equal(pngSize(Buffer.from('GIF89a and then some more bytes')), null);
    assert.equal(pngSize(png(1, 1).subarray(0, 20)), null);
    assert.equal(pngSavedMessage('compare a vs b', '/tmp/c.png', Buffer.alloc(0)), 'AttnScope: saved the PNG of compare a vs b to /tmp/c.png.');
  });
});
