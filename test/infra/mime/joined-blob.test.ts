// tier: unit
// JoinedBlob holds byte for byte what the platform's Blob holds for the same parts, and postal-mime reads the
// same message the same way with either.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { JoinedBlob } from '../../../src/infra/mime/joined-blob.js';
import PostalMime from '../../../src/infra/mime/postal-mime.js';

const NativeBlob = Object.getPrototypeOf(JoinedBlob) as typeof Blob;

async function same(parts: unknown[], options?: BlobPropertyBag): Promise<void> {
  const native = new NativeBlob(parts as BlobPart[], options);
  const joined = new JoinedBlob(parts, options);
  assert.ok(joined instanceof NativeBlob);
  assert.equal(joined.size, native.size);
  assert.equal(joined.type, native.type);
  assert.deepEqual(Buffer.from(await joined.arrayBuffer()), Buffer.from(await native.arrayBuffer()));
  assert.equal(await joined.slice(1, -1).text(), await native.slice(1, -1).text());
}

describe('JoinedBlob', () => {
  it('joins strings, views at offsets, ArrayBuffers and DataViews as the platform does', async () => {
    const bytes = new Uint8Array([0, 1, 2, 0xff, 0xfe, 10, 13, 65]);
    await same(['a', '\n', 'héllo ✉ 😀', '\n', '']);
    await same([bytes.subarray(2, 6), '\n', bytes.buffer, new DataView(bytes.buffer, 1, 3), new Uint16Array([0x4142, 0x0a0d])]);
    await same(['\ud800 lone \udfff surrogates', 'x'], { type: 'Text/Plain' });
    await same([new Uint8Array(0), '', new ArrayBuffer(0)], { type: 'application/octet-stream' });
  });

  it('leaves Blob parts, native line endings and odd arguments to the platform', async () => {
    await same([new NativeBlob(['inner']), 'x']);
    await same(['a\nb\r\n', 'c\n'], { endings: 'native' });
    await same(['one part']);
    assert.equal(new JoinedBlob().size, 0);
  });

  it('postal-mime reads every bounce fixture the same with either Blob', async () => {
    const dir = new URL('../../fixtures/bounces/', import.meta.url);
    const names = readdirSync(dir).filter((n) => n.endsWith('.eml'));
    assert.ok(names.length > 10);
    const saved = globalThis.Blob;
    try {
      for (const name of names) {
        const raw = readFileSync(new URL(name, dir));
        globalThis.Blob = NativeBlob;
        const native = await PostalMime.parse(raw, { attachmentEncoding: 'base64' });
        globalThis.Blob = JoinedBlob as typeof Blob;
        const joined = await PostalMime.parse(raw, { attachmentEncoding: 'base64' });
        assert.deepEqual(joined, native, name);
      }
    } finally {
      globalThis.Blob = saved;
    }
  });
});
