import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordEvents } from '../../../src/domain/events/record.js';
import type { MessageEventInput } from '../../../src/domain/event-types.js';
import { startService, type TestService } from '../../helpers/service.js';

describe('statistics counters', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  async function messages(n: number, prefix: string, tag: string | null) {
    const now = s.clock.now();
    const rows = Array.from({ length: n }, (_, i) => ({
      id: `${prefix}-${i}`,
      server_id: s.serverId,
      stream_id: 'outbound',
      from_email: 'a@x.test',
      from_raw: 'a@x.test',
      subject: 's',
      tag,
      html_body: null,
      text_body: 'x',
      reply_to: null,
      headers: '[]',
      metadata: '{}',
      track_opens: i % 2,
      track_links: 'None',
      attachments: '[]',
      status: 'Sent',
      received_at: now,
      mime: null,
    }));
    for (let i = 0; i < rows.length; i += 200) await s.ctx.db.insertInto('messages').values(rows.slice(i, i + 200)).execute();
    return rows;
  }

  it('aggregates a 500-event call into one upsert row per key, and adds to it on the next call', async () => {
    const rows = await messages(500, 'bulk', 'bulk');
    const processed = (r: (typeof rows)[number]): MessageEventInput => ({
      messageId: r.id,
      serverId: s.serverId,
      streamId: 'outbound',
      type: 'Processed',
      recipient: 'b@y.test',
      occurredAt: s.clock.now(),
      details: {},
      tag: 'bulk',
      // Half carry their tracking flags, half leave them to be looked up from the message.
      ...(r.track_opens ? { tracking: { opens: true, links: false } } : {}),
    });
    await s.ctx.db.transaction().execute((trx) => recordEvents(trx, s.ctx, rows.map(processed)));
    const counters = await s.ctx.db.selectFrom('stats_daily').select(['metric', 'value']).where('tag', '=', 'bulk').orderBy('metric').execute();
    assert.deepEqual(counters, [
      { metric: 'Sent', value: 500 },
      { metric: 'Tracked', value: 250 },
      { metric: 'WithOpenTracking', value: 250 },
    ]);
    await s.ctx.db.transaction().execute((trx) => recordEvents(trx, s.ctx, rows.slice(0, 3).map(processed)));
    assert.equal((await s.request('GET', '/stats/outbound?tag=bulk')).body.Sent, 503);
  });

  it('counts a tag of 1,000 multi-byte characters and filters by it', async () => {
    const tag = '統計'.repeat(500);
    const [m] = await messages(1, 'long-tag', tag);
    await s.ctx.db
      .transaction()
      .execute((trx) =>
        recordEvents(trx, s.ctx, [{ messageId: m!.id, serverId: s.serverId, streamId: 'outbound', type: 'Processed', recipient: 'b@y.test', occurredAt: s.clock.now(), details: {}, tag }]),
      );
    assert.equal((await s.request('GET', `/stats/outbound?tag=${encodeURIComponent(tag)}`)).body.Sent, 1);
    assert.equal((await s.request('GET', `/stats/outbound?tag=${encodeURIComponent(tag.slice(0, -1))}`)).body.Sent, 0);
  });

  it('rolls back with the transaction that recorded the events', async () => {
    const [m] = await messages(1, 'rollback', 'rolled');
    await assert.rejects(
      s.ctx.db.transaction().execute(async (trx) => {
        await recordEvents(trx, s.ctx, [{ messageId: m!.id, serverId: s.serverId, streamId: 'outbound', type: 'Processed', recipient: 'b@y.test', occurredAt: s.clock.now(), details: {}, tag: 'rolled' }]);
        throw new Error('abort');
      }),
    );
    assert.equal((await s.request('GET', '/stats/outbound?tag=rolled')).body.Sent, 0);
  });
});
