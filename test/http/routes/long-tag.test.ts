import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

// 1000 distinct CJK characters: ~3 KB of UTF-8 that does not compress, past PostgreSQL's b-tree entry limit.
const LONG_TAG = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('');

describe('a Tag at its 1000-character limit', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(() => s.close());

  it('is accepted, stored and found by every tag filter', async () => {
    const sent = await s.request('POST', '/email', {
      body: { From: 'sender@example.com', To: 'someone@example.org', Subject: 'long tag', TextBody: 'x', Tag: LONG_TAG },
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const tag = encodeURIComponent(LONG_TAG);
    const found = await s.request('GET', `/messages?count=10&offset=0&tag=${tag}`);
    assert.equal(found.status, 200);
    assert.equal(found.body.TotalCount, 1);
    assert.equal(found.body.Messages[0].Tag, LONG_TAG);
    const other = await s.request('GET', `/messages?count=10&offset=0&tag=${encodeURIComponent(LONG_TAG.slice(0, 999))}`);
    assert.equal(other.body.TotalCount, 0);
    for (const path of ['/messages/opens', '/messages/clicks', '/bounces']) {
      const r = await s.request('GET', `${path}?count=10&offset=0&tag=${tag}`);
      assert.equal(r.status, 200, path);
      assert.equal(r.body.TotalCount, 0, path);
    }
  });
});
