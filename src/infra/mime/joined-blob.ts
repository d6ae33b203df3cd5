// A Blob that joins its parts into one buffer when it is made. postal-mime collects a part's body as one Blob
// part per line (a Uint8Array view and a "\n" string each) and reads it back with blob.arrayBuffer(). Node's
// own Blob keeps every part as a separate handle and reads them back one asynchronous step at a time, so a
// megabyte of short lines cost 5-9 s of CPU, most of it in that read and its garbage. Joining at construction
// keeps the cost linear with a small constant, and the result is still a real Blob (instanceof, size, type,
// arrayBuffer, text, stream, slice all the platform's own), byte for byte what the native one holds
// (test/infra/mime/joined-blob.test.ts compares them).
const NativeBlob = globalThis.Blob;
const encoder = new TextEncoder();
const NEWLINE = encoder.encode('\n');

type Part = string | ArrayBuffer | ArrayBufferView;

function isJoinable(parts: unknown): parts is Part[] {
  if (!Array.isArray(parts)) return false;
  for (const p of parts) if (typeof p !== 'string' && !(p instanceof ArrayBuffer) && !ArrayBuffer.isView(p)) return false;
  return true;
}

/** The bytes of one part as the Blob constructor reads them (strings as UTF-8, lone surrogates as U+FFFD). */
function bytesOf(p: Part): Uint8Array {
  if (p === '\n') return NEWLINE;
  if (typeof p === 'string') return encoder.encode(p);
  if (p instanceof ArrayBuffer) return new Uint8Array(p);
  return new Uint8Array(p.buffer, p.byteOffset, p.byteLength);
}

export class JoinedBlob extends NativeBlob {
  constructor(parts?: unknown, options?: BlobPropertyBag) {
    // Blob parts (readable only asynchronously) and `endings: 'native'` (line endings rewritten) are left to
    // the platform; neither occurs in postal-mime.
    if (parts === undefined || !isJoinable(parts) || parts.length < 2 || options?.endings === 'native') {
      super(parts as BlobPart[] | undefined, options);
      return;
    }
    const chunks = new Array<Uint8Array>(parts.length);
    let size = 0;
    for (let i = 0; i < parts.length; i++) {
      chunks[i] = bytesOf(parts[i]);
      size += chunks[i].byteLength;
    }
    const joined = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      joined.set(c, at);
      at += c.byteLength;
    }
    super([joined], options);
  }
}

/** Makes JoinedBlob the global Blob (once). postal-mime names the global `Blob` when it decodes a part. */
export function installJoinedBlob(): void {
  if (globalThis.Blob !== JoinedBlob) globalThis.Blob = JoinedBlob as typeof Blob;
}
