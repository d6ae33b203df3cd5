import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { purgeExpired, RETENTION_BATCH } from '../../../src/domain/retention/purge.js';
import { DAY_MS } from '../../../src/infra/time.js';
import { dayStart } from '../../../src/infra/db/partitions.js';
import { TEST_DIALECT } from '../../helpers/database.js';
import { clickUrl, openUrl } from '../../../src/domain/tracking/tokens.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'keep@example.com';
const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);

describe('retention purge', () => {
  let s: TestService;
  let otherToken: string;
  let otherServerId: number;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    s.clock.freeze(T0);
    assert.equal((await s.request('PUT', '/server', { body: { RetentionDays: 7 } })).status, 200);
    const other = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Long memory', RetentionDays: 30 } });
    otherToken = other.body.ApiTokens[0];
    otherServerId = other.body.ID;
  });
  after(() => s.close());

  const send = async (token?: string) => {
    const r = await s.request('POST', '/email', {
      token,
      body: {
        From: FROM,
        To: 'r@example.net',
        Subject: 's',
        HtmlBody: '<a href="https://example.org/x">x</a>',
        TrackOpens: true,
        Attachments: [{ Name: 'a.txt', Content: 'aGk=', ContentType: 'text/plain' }],
      },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const counts = async (messageId: string) => {
    const n = async (table: 'messages' | 'message_recipients' | 'message_attachments' | 'message_events' | 'opens' | 'clicks' | 'bounces') =>
      table === 'messages'
        ? (await s.ctx.db.selectFrom('messages').select('id').where('id', '=', messageId).execute()).length
        : (await s.ctx.db.selectFrom(table).select('message_id').where('message_id', '=', messageId).execute()).length;
    return {
      messages: await n('messages'),
      recipients: await n('message_recipients'),
      attachments: await n('message_attachments'),
      events: await n('message_events'),
      opens: await n('opens'),
      clicks: await n('clicks'),
      bounces: await n('bounces'),
    };
  };

  it('deletes a message with everything recorded about it once it is older than the retention, to the millisecond', async () => {
    const old = await send();
    await fetch(s.url + new URL(openUrl(s.ctx, { messageId: old, recipient: 'r@example.net' })).pathname).then((r) => r.arrayBuffer());
    const click = clickUrl(s.ctx, { messageId: old, recipient: 'r@example.net', link: 'https://example.org/x', location: 'HTML' });
    await fetch(s.url + new URL(click).pathname, { redirect: 'manual' }).then((r) => r.arrayBuffer());
    await s.ctx.db.transaction().execute((trx) =>
      recordBounce(trx, s.ctx, { messageId: old, email: 'r@example.net', type: 'SoftBounce', details: '452 4.2.2 mailbox full', bouncedAt: s.clock.now(), dump: 'raw DSN' }),
    );
    const full = await counts(old);
    assert.deepEqual(full, { messages: 1, recipients: 1, attachments: 1, events: full.events, opens: 1, clicks: 1, bounces: 1 });
    assert.ok(full.events >= 4, 'processed, opened, clicked, bounced');
    const otherOld = await send(otherToken);
    s.clock.advance(DAY_MS);
    const younger = await send();
    const sentBefore = (await s.request('GET', '/stats/outbound')).body.Sent;

    // Exactly 7 days old: kept.
    s.clock.freeze(T0 + 7 * DAY_MS);
    await purgeExpired(s.ctx, s.clock.now());
    assert.equal((await counts(old)).messages, 1);

    // One millisecond later: gone, with its recipients, attachments, events, opens, clicks and bounce.
    s.clock.advance(1);
    await s.ctx.scheduler.runAll();
    assert.deepEqual(await counts(old), { messages: 0, recipients: 0, attachments: 0, events: 0, opens: 0, clicks: 0, bounces: 0 });
    assert.equal((await s.request('GET', `/messages/outbound/${old}/details`)).body.ErrorCode, 701);
    assert.equal((await counts(younger)).messages, 1, 'a day younger: kept');
    assert.equal((await counts(otherOld)).messages, 1, 'the other server keeps 30 days');
    assert.equal((await s.request('GET', '/stats/outbound')).body.Sent, sentBefore, 'statistics stay');
    const otherStats = await s.request('GET', '/stats/outbound', { token: otherToken });
    assert.equal(otherStats.body.Sent, 1);

    s.clock.freeze(T0 + 30 * DAY_MS + 1);
    await purgeExpired(s.ctx, s.clock.now());
    assert.equal((await counts(younger)).messages, 0, 'the shorter retention: exactly');
    if (TEST_DIALECT === 'postgres') {
      // The longest retention goes by the day (infra/db/partitions.ts rowPurgeCutoff): the message stays
      // until its whole day has expired, and is gone after.
      assert.equal((await counts(otherOld)).messages, 1);
      s.clock.freeze(dayStart(T0) + DAY_MS + 30 * DAY_MS);
      await purgeExpired(s.ctx, s.clock.now());
    }
    assert.deepEqual(await counts(otherOld), { messages: 0, recipients: 0, attachments: 0, events: 0, opens: 0, clicks: 0, bounces: 0 });
  });

  it('purges large backlogs in bounded batches', async () => {
    const now = s.clock.now();
    const n = RETENTION_BATCH * 2 + 7;
    const rows = Array.from({ length: n }, (_, i) => ({
      id: `bulk-${i}`,
      server_id: otherServerId,
      stream_id: 'outbound',
      from_email: FROM,
      from_raw: FROM,
      subject: 's',
      tag: null,
      html_body: null,
      text_body: 'x',
      reply_to: null,
      headers: '[]',
      metadata: '{}',
      track_opens: 0,
      track_links: 'None',
      attachments: '[]',
      status: 'Sent',
      received_at: now - 31 * DAY_MS - i,
      mime: null,
    }));
    for (let i = 0; i < rows.length; i += 200) await s.ctx.db.insertInto('messages').values(rows.slice(i, i + 200)).execute();
    const fresh = await send(otherToken);
    const result = await purgeExpired(s.ctx, now);
    assert.equal(result.messages, n);
    assert.equal((await counts(fresh)).messages, 1);
    const left = await s.ctx.db.selectFrom('messages').select('id').where('server_id', '=', otherServerId).execute();
    assert.deepEqual(left.map((r) => r.id), [fresh]);
  });
});
