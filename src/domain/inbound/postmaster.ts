// Mail for postmaster. RFC 5321 4.5.1: an SMTP server that delivers mail must take `postmaster` (local part
// case-insensitive) at each domain it takes mail for, and the bare `RCPT TO:<postmaster>` (4.1.1.3). The
// listener takes it at mailroom's own domains (the inbound domain, the return-path domain and every verified
// custom Return-Path domain); at a server's InboundDomain postmaster is that server's inbound mail like any
// other address there. It is kept for the operator, who reads it with `mailroom postmaster` and sees the count
// in `mailroom status`: the newest POSTMASTER_KEEP messages of the last POSTMASTER_DAYS days.
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import type { Envelope } from './authenticate.js';
import { readPostmasterSummary } from './read-on-thread.js';

export const POSTMASTER = 'postmaster';
export const POSTMASTER_KEEP = 1000;
export const POSTMASTER_DAYS = 30;

/** Whether `address` is postmaster at a domain this listener takes mail for (`ownDomain` decides). */
export async function isPostmaster(address: string, ownDomain: (domain: string) => Promise<boolean>): Promise<boolean> {
  const a = address.trim();
  if (a.toLowerCase() === POSTMASTER) return true;
  const at = a.lastIndexOf('@');
  if (at <= 0 || a.slice(0, at).toLowerCase() !== POSTMASTER) return false;
  return ownDomain(a.slice(at + 1).toLowerCase().replace(/\.$/, ''));
}

export interface PostmasterOutcome {
  id: string;
  duplicate: boolean;
}

/** Keeps one message for postmaster (once, however many postmaster addresses it names), and trims the store. */
export async function storePostmaster(ctx: AppContext, raw: Buffer, env: Envelope, recipients: string[]): Promise<PostmasterOutcome> {
  const id = randomUUID();
  const now = ctx.clock.now();
  const { from, subject } = await readPostmasterSummary(ctx, raw);
  const row = {
    id,
    digest: createHash('sha256').update(raw).digest('hex'),
    received_at: now,
    remote_ip: env.ip,
    mail_from: env.mailFrom,
    recipients: recipients.join(' '),
    from_header: from,
    subject,
    size: raw.length,
    message: raw.toString('utf8').replace(/\u0000/g, ''),
  };
  return ctx.db.transaction().execute(async (trx) => {
    const r = await trx
      .insertInto('postmaster_messages')
      .values(row)
      .onConflict((oc) => oc.column('digest').doNothing())
      .executeTakeFirst();
    await trim(trx, now);
    return { id, duplicate: Number(r.numInsertedOrUpdatedRows ?? 0n) === 0 };
  });
}

async function trim(trx: Kysely<Database>, now: number): Promise<void> {
  await trx.deleteFrom('postmaster_messages').where('received_at', '<', now - POSTMASTER_DAYS * 86_400_000).execute();
  const last = await trx.selectFrom('postmaster_messages').select('received_at').orderBy('received_at', 'desc').limit(1).offset(POSTMASTER_KEEP - 1).executeTakeFirst();
  if (last) await trx.deleteFrom('postmaster_messages').where('received_at', '<', last.received_at).execute();
}

export interface PostmasterListItem {
  id: string;
  receivedAt: number;
  remoteIp: string;
  mailFrom: string;
  from: string;
  subject: string;
  size: number;
}

export async function listPostmaster(ctx: AppContext, limit = 50): Promise<{ total: number; messages: PostmasterListItem[] }> {
  const [count, rows] = await Promise.all([
    ctx.db.selectFrom('postmaster_messages').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('postmaster_messages')
      .select(['id', 'received_at', 'remote_ip', 'mail_from', 'from_header', 'subject', 'size'])
      .orderBy('received_at', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute(),
  ]);
  return {
    total: Number(count.n),
    messages: rows.map((r) => ({ id: r.id, receivedAt: Number(r.received_at), remoteIp: r.remote_ip, mailFrom: r.mail_from, from: r.from_header, subject: r.subject, size: Number(r.size) })),
  };
}

export async function readPostmaster(ctx: AppContext, id: string): Promise<string | null> {
  const r = await ctx.db.selectFrom('postmaster_messages').select('message').where('id', '=', id).executeTakeFirst();
  return r ? r.message : null;
}
