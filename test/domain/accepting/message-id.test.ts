// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newMessageId } from '../../../src/domain/accepting/message-id.js';

describe('MessageID (UUID version 7)', () => {
  it('is a version 7 UUID, unique, ordered by time', () => {
    const t = Date.UTC(2026, 10, 21);
    const ids = Array.from({ length: 20_000 }, (_, i) => newMessageId(t + Math.floor(i / 100)));
    for (const id of ids.slice(0, 50)) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16), t);
    // Across milliseconds the text order is the time order (the primary key appends).
    for (let i = 100; i < ids.length; i += 100) assert.ok(ids[i - 100] < ids[i]);
  });
});
