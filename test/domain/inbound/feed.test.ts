// The console's inbound list (domain/inbound/feed.ts) over more messages than a substring search reads at
// once: a search matching nothing stops at SCAN_WINDOW messages and says where, and going on from there finds
// the older match; keyset pages walk every message once, ties of received_at included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inboundFeed, SCAN_WINDOW, type FeedCursor } from '../../../src/domain/inbound/feed.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, addUsers, ConsoleClient } from '../../http/console/helpers.js';

describe('inbound feed: keyset pages and bounded substring search', () => {
  let s: TestService;
  const T = Date.UTC(2026, 0, 1);
  const total = SCAN_WINDOW + 150;
  before(async () => {
    s = await startService();
    const row = (n: number) => ({
      id: `00000000-0000-4000-9000-${n.toString(16).padStart(12, '0')}`,
      server_id: s.serverId,
      stream_id: 'inbound',
      digest: `d${n}`,
      // The oldest message alone is from the sender searched for.
      from_email: n === 0 ? 'needle@old.example' : `customer${n % 50}@example.org`,
      from_name: '',
      recipients: 'support@inbound.example',
      original_recipient: 'support@inbound.example',
      subject: `Message ${n}`,
      mailbox_hash: '',
      tag: n % 2 ? 'odd' : 'even',
      status: 'Processed',
      payload: '{}',
      // Pairs share an instant, so ties are walked by id.
      received_at: T + Math.floor(n / 2) * 1000,
    });
    for (let i = 0; i < total; i += 1000) {
      await s.ctx.db.insertInto('inbound_messages').values(Array.from({ length: Math.min(1000, total - i) }, (_, k) => row(i + k))).execute();
    }
  });
  after(() => s.close());

  it('walks every message once, newest first, across ties', async () => {
    const seen = new Set<string>();
    let before: FeedCursor | undefined;
    let last = Infinity;
    for (;;) {
      const { items } = await inboundFeed(s.ctx, s.serverId, { limit: 1000, tag: 'odd', before });
      for (const m of items) {
        assert.ok(!seen.has(m.MessageID));
        seen.add(m.MessageID);
        const at = Date.parse(m.ReceivedAt);
        assert.ok(at <= last);
        last = at;
      }
      if (items.length < 1000) break;
      const c = items[items.length - 1]!.cursor;
      before = { at: Number(c.slice(0, c.indexOf('.'))), id: c.slice(c.indexOf('.') + 1) };
    }
    assert.equal(seen.size, total / 2);
  });

  it('stops a search matching nothing at the window, and finds the older match from where it stopped', async () => {
    const first = await inboundFeed(s.ctx, s.serverId, { limit: 50, fromemail: 'NEEDLE@' });
    assert.equal(first.items.length, 0);
    assert.ok(first.searchedTo, 'says where it stopped');
    assert.equal(first.searchedTo.id, '');
    const second = await inboundFeed(s.ctx, s.serverId, { limit: 50, fromemail: 'NEEDLE@', before: first.searchedTo });
    assert.deepEqual(second.items.map((m) => m.From), ['needle@old.example']);
    assert.equal(second.searchedTo, undefined, 'the rest was fewer than the window: nothing more to search');
    // An equality filter has its index and no window.
    const tagged = await inboundFeed(s.ctx, s.serverId, { limit: 50, tag: 'nothing' });
    assert.equal(tagged.searchedTo, undefined);
  });

  it('the Inbound page says where the search stopped and links on from there', async () => {
    await addUsers(s);
    const c = new ConsoleClient(s);
    await c.signIn(ADMIN);
    const page = await c.get(`/console/s/${s.serverId}/inbound?fromemail=needle%40`);
    assert.match(page.text, /No inbound messages match among these\./);
    const link = /<p class="muted" id="search-window">Searched 20,000 messages, back to <time datetime="[^"]+">[^<]+<\/time>\. <a href="([^"]+)" rel="next">Search older messages<\/a>/.exec(page.text);
    assert.ok(link, page.text.slice(-1500));
    const older = await c.get(link[1]!.replace(/&amp;/g, '&'));
    assert.match(older.text, /needle@old\.example/);
    assert.doesNotMatch(older.text, /id="search-window"/);
  });
});
