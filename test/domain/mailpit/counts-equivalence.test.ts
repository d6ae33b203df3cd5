// The kept inbox figures (migration 0038's triggers, domain/mailpit/counts.ts) equal a fresh count of the rows
// after every write path that changes them: accepting into a Sandbox server (POST /email, /email/batch, the
// development SMTP listener, a bulk request, Mailpit's /api/v1/send), Mailpit's read flag (by ids, all, by
// search), tags (set, rename, delete), deletes (one, many, by search, all), retention (rows; on PostgreSQL a
// dropped day partition too), a compaction, and deleting the server. The fresh count is read here from the
// tables themselves, as Mailpit defines the figures: a message's tags are its state's list when set, else
// its Tag; unique whatever their case; per tag also its unread messages (migration 0040), which a search of
// `tag:x is:unread` counts from (domain/mailpit/counts.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import { inboxFigures } from '../../../src/domain/mailpit/counts.js';
import { purgeExpired } from '../../../src/domain/retention/purge.js';
import { compactMailpitCounts, readTagCounts } from '../../../src/infra/db/mailpit-counts.js';
import { migrations } from '../../../src/infra/db/migrations/index.js';
import { dayStart, dropPartitionsBefore } from '../../../src/infra/db/partitions.js';
import { DAY_MS } from '../../../src/infra/time.js';
import { startDevSmtpListener } from '../../../src/smtp-listeners/dev-smtp-listener.js';
import type { SubmissionListener } from '../../../src/smtp-listeners/submission-listener.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'app@shop.example';
const D0 = Date.UTC(2026, 5, 1, 10, 0, 0);

interface Fresh {
  total: number;
  unread: number;
  tags: Record<string, number>;
  /** Per tag (lowercase), its unread messages (migration 0040). */
  tagUnread: Record<string, number>;
}

describe('kept Mailpit figures equal a fresh count after every write path', () => {
  let s: TestService;
  let listener: SubmissionListener;
  const servers: Record<string, { id: number; token: string }> = {};

  const mk = async (Name: string, RetentionDays = 45) => {
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name, DeliveryType: 'Sandbox', RetentionDays } });
    assert.equal(r.status, 200, r.text);
    servers[Name] = { id: r.body.ID, token: r.body.ApiTokens[0] };
  };
  const send = async (name: string, body: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { token: servers[name]!.token, body: { From: FROM, To: 'r@dest.example', Subject: 'Hello', TextBody: 'x', ...body } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const mp = async (name: string, method: string, path: string, body?: unknown) => {
    const auth = `Basic ${Buffer.from(`ci:${servers[name]!.token}`).toString('base64')}`;
    const r = await s.request(method, `/mailpit/api/v1/${path}`, { token: null, headers: { authorization: auth }, ...(body === undefined ? {} : { body }) });
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };

  /** Mailpit's figures counted from the rows. */
  const fresh = async (serverId: number): Promise<Fresh> => {
    const { rows } = await sql<{ tag: string | null; read: number | null; tags: string | null }>`
      select m.tag, s.read, s.tags from messages m left join mailpit_state s on s.message_id = m.id where m.server_id = ${serverId} and m.sandbox = 1`.execute(s.ctx.db);
    const byKey = new Map<string, { name: string; n: number; unread: number }>();
    for (const r of rows) {
      const list: string[] = r.tags !== null ? JSON.parse(r.tags) : r.tag ? [r.tag] : [];
      for (const t of list) {
        const e = byKey.get(t.toLowerCase()) ?? { name: t, n: 0, unread: 0 };
        byKey.set(t.toLowerCase(), e);
        e.n++;
        if (r.read !== 1) e.unread++;
      }
    }
    const tags: Record<string, number> = {};
    const tagUnread: Record<string, number> = {};
    for (const e of byKey.values()) {
      tags[e.name.toLowerCase()] = e.n;
      tagUnread[e.name.toLowerCase()] = e.unread;
    }
    return { total: rows.length, unread: rows.filter((r) => r.read !== 1).length, tags, tagUnread };
  };

  const check = async (step: string) => {
    for (const [name, { id }] of Object.entries(servers)) {
      const want = await fresh(id);
      const kept = await inboxFigures(s.ctx, { id, accountId: 0, sandbox: true });
      const tags = Object.fromEntries([...kept.tags].map(([t, n]) => [t.toLowerCase(), n]));
      // Each tag's unread as the search of `tag:x is:unread` reads it (readTagCounts), for every tag the rows name.
      const { rows } = await sql<{ tag: string }>`select distinct lower(tag) as tag from mailpit_counts where server_id = ${id} and tag <> ''`.execute(s.ctx.db);
      const tagUnread: Record<string, number> = {};
      for (const t of new Set([...rows.map((r) => r.tag), ...Object.keys(want.tags)])) {
        const c = await readTagCounts(s.ctx.db, id, t);
        assert.equal(c.n, want.tags[t] ?? 0, `${step}: ${name}: tag ${t}`);
        if (c.n !== 0 || c.unread !== 0) tagUnread[t] = c.unread;
      }
      assert.deepEqual({ total: kept.total, unread: kept.unread, tags, tagUnread }, want, `${step}: ${name}`);
    }
  };

  before(async () => {
    s = await startService({ env: { MAILROOM_DEV_SMTP_PORT: '0', MAILROOM_DEV_SMTP_SERVER: 'Inbox' } });
    s.clock.freeze(D0);
    await s.ctx.scheduler.runAll(); // PostgreSQL: the day partitions of today and the week ahead
    await addConfirmedSender(s, FROM);
    await mk('Inbox', 7);
    await mk('Other', 30);
    listener = await startDevSmtpListener(s.ctx);
  });
  after(async () => {
    await listener.stop();
    await s.close();
  });

  it('after accepts, read flags, tags, deletes, retention, a compaction and the server deletion', async () => {
    await check('empty');
    // Accepting: the API, a batch, SMTP, a bulk request, Mailpit's send (with tags, kept in mailpit_state).
    const a = await send('Inbox', { Tag: 'welcome' });
    const b = await send('Inbox', { Tag: 'Welcome' });
    const c = await send('Inbox', { Tag: 'reset' });
    const d = await send('Inbox', {});
    await send('Other', { Tag: 'welcome' });
    const batch = await s.request('POST', '/email/batch', {
      token: servers.Inbox!.token,
      body: [1, 2, 3].map((i) => ({ From: FROM, To: `b${i}@dest.example`, Subject: `Batch ${i}`, TextBody: 'x', Tag: i === 3 ? '' : 'batch' })),
    });
    assert.equal(batch.status, 200, batch.text);
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: listener.port!, secure: false, ignoreTLS: true });
    await t.sendMail({ from: FROM, to: 'jane@dest.example', subject: 'By SMTP', text: 'Hello', headers: { 'X-PM-Tag': 'smtp' } });
    await t.sendMail({ from: FROM, to: 'joe@dest.example', subject: 'By SMTP, no tag', text: 'Hello' });
    t.close();
    const bulk = await s.request('POST', '/email/bulk', {
      token: servers.Inbox!.token,
      body: { From: FROM, MessageStream: 'broadcast', Subject: 'News {{n}}', TextBody: 'x', Tag: 'news', Messages: [1, 2, 3, 4].map((n) => ({ To: `n${n}@dest.example`, TemplateModel: { n } })) },
    });
    assert.equal(bulk.status, 200, bulk.text);
    await s.drain();
    await mp('Inbox', 'POST', 'send', { From: { Email: FROM }, To: [{ Email: 'x@dest.example' }], Subject: 'Sent by Mailpit', Text: 'x', Tags: ['one', 'Two'] });
    await check('accepted');
    assert.equal((await fresh(servers.Inbox!.id)).total, 14);

    // The read flag: by ids, every message, by search, unread again.
    await mp('Inbox', 'PUT', 'messages', { IDs: [a, c], Read: true });
    await check('read by ids');
    await mp('Inbox', 'PUT', 'messages', { IDs: [c], Read: false });
    await mp('Inbox', 'PUT', 'messages', { Search: 'tag:news', Read: true });
    await check('read by search');
    await mp('Inbox', 'PUT', 'messages', { Read: true });
    await check('all read');
    await mp('Inbox', 'PUT', 'messages', { Search: 'tag:welcome', Read: false });
    await check('unread by search');

    // Tags: set (replacing a Tag, a case variant of another), rename, delete, cleared.
    await mp('Inbox', 'PUT', 'tags', { IDs: [a, d], Tags: ['alpha', 'RESET'] });
    await check('tags set');
    await mp('Inbox', 'PUT', 'tags/alpha', { Name: 'gamma' });
    await check('tag renamed');
    await mp('Inbox', 'DELETE', 'tags/reset');
    await check('tag deleted');
    await mp('Inbox', 'PUT', 'tags', { IDs: [b], Tags: [] });
    await check('tags cleared');
    // The read flag and the tags changed by one statement (both triggers' parts at once), and a state row
    // deleted alone.
    await sql`update mailpit_state set read = 1 - read, tags = ${'["Both","gamma"]'} where server_id = ${servers.Inbox!.id} and message_id <> ${b}`.execute(s.ctx.db);
    await check('read flag and tags in one statement');
    await sql`delete from mailpit_state where message_id = ${d}`.execute(s.ctx.db);
    await check('a state row deleted');
    assert.equal((await fresh(servers.Inbox!.id)).tags.welcome, undefined, 'the last welcome gone');

    // The API's list and info read the same figures.
    const list = await mp('Inbox', 'GET', 'messages?limit=1');
    const want = await fresh(servers.Inbox!.id);
    assert.deepEqual([list.total, list.unread, list.messages_count], [want.total, want.unread, want.total]);
    assert.deepEqual(
      list.tags.map((x: string) => x.toLowerCase()).sort(),
      Object.keys(want.tags).sort(),
    );

    // Deletes: one, many, by search.
    await mp('Inbox', 'DELETE', 'messages', { IDs: [a] });
    await check('deleted one');
    await mp('Inbox', 'DELETE', 'messages', { IDs: [b, c] });
    await check('deleted many');
    await mp('Inbox', 'DELETE', 'search?query=tag%3Anews');
    await check('deleted by search');

    // Retention: a week later the 7-day inbox's messages go by rows; a new one stays.
    const older = await send('Other', { Tag: 'old' });
    await mp('Other', 'PUT', 'messages', { IDs: [older], Read: true });
    s.clock.freeze(D0 + 7 * DAY_MS + 1);
    await s.ctx.scheduler.runAll();
    await send('Inbox', { Tag: 'late' });
    await purgeExpired(s.ctx, s.clock.now());
    await check('retention by rows');
    assert.equal((await fresh(servers.Inbox!.id)).total, 1);
    // PostgreSQL: the day partition of D0 dropped whole (as retention does for the longest retention),
    // taking the other inbox's messages of that day.
    if (s.ctx.database.dialect === 'postgres') {
      assert.ok((await dropPartitionsBefore(s.ctx.db, dayStart(D0) + DAY_MS)).length >= 1);
      assert.equal((await fresh(servers.Other!.id)).total, 0);
      await check('day partition dropped');
    }

    await compactMailpitCounts(s.ctx.db, servers.Inbox!.id);
    await compactMailpitCounts(s.ctx.db, servers.Other!.id);
    await check('compacted');

    // Everything deleted, then the server itself: no figure is left of it.
    await mp('Inbox', 'DELETE', 'messages');
    await check('deleted all');
    const inbox = servers.Inbox!.id;
    const gone = await s.request('DELETE', `/servers/${inbox}`, { accountToken: s.accountToken });
    assert.equal(gone.status, 200, gone.text);
    delete servers.Inbox;
    const left = await sql<{ n: number | string }>`select count(*) as n from mailpit_counts where server_id = ${inbox}`.execute(s.ctx.db);
    assert.equal(Number(left.rows[0]!.n), 0);
    await check('server deleted');
  });

  it('the migrations fill the figures of a database that has messages, read flags and tags', async () => {
    await mk('Backfill');
    const ids = await Promise.all(['x', 'X', 'y', '', 'z'].map((Tag) => send('Backfill', { Tag })));
    await mp('Backfill', 'PUT', 'messages', { IDs: ids.slice(0, 2), Read: true });
    await mp('Backfill', 'PUT', 'tags', { IDs: ids.slice(1, 4), Tags: ['x', 'w'] });
    // The schema as before migration 0038, with these rows in it; then 0038 and 0040.
    if (s.ctx.database.dialect === 'postgres') {
      await sql`drop table mailpit_counts`.execute(s.ctx.db);
      for (const f of ['messages_insert', 'messages_delete', 'message_update', 'state_insert', 'state_update', 'state_delete', 'server_delete']) {
        await sql`drop function ${sql.id(`mailpit_counts_${f}`)} cascade`.execute(s.ctx.db);
      }
    } else {
      const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'trigger' and name like 'mailpit_counts%'`.execute(s.ctx.db);
      assert.equal(rows.length, 7);
      for (const r of rows) await sql`drop trigger ${sql.id(r.name)}`.execute(s.ctx.db);
      await sql`drop table mailpit_counts`.execute(s.ctx.db);
    }
    await s.ctx.db.transaction().execute(async (trx) => {
      await migrations['0038-mailpit-counts']!.up(trx, s.ctx.database.dialect);
      await migrations['0040-mailpit-tag-unread']!.up(trx, s.ctx.database.dialect);
    });
    await check('backfilled');
    assert.equal((await fresh(servers.Backfill!.id)).total, 5);
    // And kept from there on.
    await mp('Backfill', 'DELETE', 'messages', { IDs: ids.slice(0, 3) });
    await check('after the backfill');
  });
});
