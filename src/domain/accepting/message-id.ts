// MessageIDs are UUIDs of version 7 (RFC 9562 5.7): 48 bits of Unix milliseconds, then 74 random bits. Being
// time-ordered, new IDs land at the end of the messages primary key and of every index that leads with
// message_id (recipients, attachments, events), instead of on a random B-tree page each: a group commit
// then writes a few pages per index rather than one per message (measured: bench/README.md).
import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const POOL_SIZE = 16 * 1024;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

export function newMessageId(now: number): string {
  if (offset + 10 > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const b = Buffer.allocUnsafe(16);
  // 48-bit big-endian timestamp.
  b.writeUIntBE(Math.max(0, Math.floor(now)) % 2 ** 48, 0, 6);
  pool.copy(b, 6, offset, offset + 10);
  offset += 10;
  b[6] = (b[6] & 0x0f) | 0x70; // version 7
  b[8] = (b[8] & 0x3f) | 0x80; // variant 10
  let s = '';
  for (let i = 0; i < 16; i++) {
    s += HEX[b[i]];
    if (i === 3 || i === 5 || i === 7 || i === 9) s += '-';
  }
  return s;
}
