// Records one pixel fetch or one click: the first open per (message, recipient) and the first click per
// (message, recipient, link) become stored records (the unique indexes decide, so two simultaneous first
// hits still yield one record), and every hit is an Opened / LinkClicked event (webhooks and statistics
// follow from recordEvents), all in one transaction.
import { createHash } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { recordEvent } from '../events/record.js';
import { fromJson } from '../../infra/db/util.js';
import type { ClickToken, OpenToken } from './tokens.js';
import { parseUserAgent, type ParsedAgent } from './user-agent.js';

function agentColumns(a: ParsedAgent, userAgent: string) {
  return {
    user_agent: userAgent,
    client_name: a.client.Name,
    client_company: a.client.Company,
    client_family: a.client.Family,
    os_name: a.os.Name,
    os_company: a.os.Company,
    os_family: a.os.Family,
    platform: a.platform,
  };
}

function agentDetails(a: ParsedAgent, userAgent: string) {
  // No geolocation database ships with mailroom, so Geo stays empty; ReadSeconds needs a read-time
  // probe (a long-polling image) that is not implemented, so it is 0 as for clients that do not report it.
  return { Client: a.client, OS: a.os, Platform: a.platform, UserAgent: userAgent, ReadSeconds: 0, Geo: {} };
}

/** Returns false when the message no longer exists (purged): nothing is recorded then. */
export async function recordOpen(ctx: AppContext, t: OpenToken, rawAgent: string): Promise<boolean> {
  const userAgent = rawAgent.slice(0, 1024);
  const agent = parseUserAgent(userAgent);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const m = await trx.selectFrom('messages').select(['server_id', 'stream_id', 'tag', 'metadata']).where('id', '=', t.messageId).executeTakeFirst();
    if (!m) return false;
    const inserted = await trx
      .insertInto('opens')
      .values({ message_id: t.messageId, server_id: m.server_id, stream_id: m.stream_id, recipient: t.recipient, tag: m.tag, occurred_at: now, ...agentColumns(agent, userAgent) })
      .onConflict((oc) => oc.columns(['message_id', 'recipient']).doNothing())
      .returning('id')
      .execute();
    await recordEvent(trx, ctx, {
      messageId: t.messageId,
      serverId: m.server_id,
      streamId: m.stream_id,
      type: 'Opened',
      recipient: t.recipient,
      occurredAt: now,
      details: { FirstOpen: inserted.length > 0, ...agentDetails(agent, userAgent) },
      tag: m.tag,
      metadata: fromJson<Record<string, string>>(m.metadata, {}),
    });
    return true;
  });
}

export async function recordClick(ctx: AppContext, t: ClickToken, rawAgent: string): Promise<boolean> {
  const userAgent = rawAgent.slice(0, 1024);
  const agent = parseUserAgent(userAgent);
  const now = ctx.clock.now();
  const linkHash = createHash('sha256').update(t.link).digest('hex');
  return ctx.db.transaction().execute(async (trx) => {
    const m = await trx.selectFrom('messages').select(['server_id', 'stream_id', 'tag', 'metadata']).where('id', '=', t.messageId).executeTakeFirst();
    if (!m) return false;
    const inserted = await trx
      .insertInto('clicks')
      .values({
        message_id: t.messageId,
        server_id: m.server_id,
        stream_id: m.stream_id,
        recipient: t.recipient,
        tag: m.tag,
        occurred_at: now,
        ...agentColumns(agent, userAgent),
        original_link: t.link,
        link_hash: linkHash,
        click_location: t.location,
      })
      .onConflict((oc) => oc.columns(['message_id', 'recipient', 'link_hash']).doNothing())
      .returning('id')
      .execute();
    await recordEvent(trx, ctx, {
      messageId: t.messageId,
      serverId: m.server_id,
      streamId: m.stream_id,
      type: 'LinkClicked',
      recipient: t.recipient,
      occurredAt: now,
      details: { FirstClick: inserted.length > 0, ...agentDetails(agent, userAgent), OriginalLink: t.link, ClickLocation: t.location },
      tag: m.tag,
      metadata: fromJson<Record<string, string>>(m.metadata, {}),
    });
    return true;
  });
}
