// GET /messages/opens and /messages/clicks (and their per-message forms): the stored first open per
// recipient and first click per recipient and link, newest first.
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import type { ClicksTable, OpensTable } from '../../infra/db/tables/tracking.js';
import { iso } from '../../infra/time.js';
import { countCapped } from './counting.js';
import { requireMessage } from './details.js';
import { addressFilter } from './search.js';

export interface HitSearch {
  count: number;
  offset: number;
  recipient?: string;
  tag?: string;
  messagestream?: string;
  client_name?: string;
  client_company?: string;
  client_family?: string;
  os_name?: string;
  os_company?: string;
  os_family?: string;
  platform?: string;
}

/** Exact-match filters on the parsed user agent (the hosted service's opens/clicks query keys). */
const AGENT_FILTERS = ['client_name', 'client_company', 'client_family', 'os_name', 'os_company', 'os_family', 'platform'] as const;

type Table = 'opens' | 'clicks';

function agentFields(r: Selectable<OpensTable>) {
  return {
    Client: { Name: r.client_name, Company: r.client_company, Family: r.client_family },
    OS: { Name: r.os_name, Company: r.os_company, Family: r.os_family },
    Platform: r.platform,
    UserAgent: r.user_agent,
    // No geolocation database ships with mailroom (see src/domain/tracking/record-hit.ts).
    Geo: {},
  };
}

export function openRecord(r: Selectable<OpensTable>) {
  return {
    RecordType: 'Open',
    // Only the first open is stored (docs/reference/messages.md, "Open record").
    FirstOpen: true,
    ...agentFields(r),
    ReadSeconds: 0,
    MessageID: r.message_id,
    MessageStream: r.stream_id,
    ReceivedAt: iso(r.occurred_at),
    Tag: r.tag ?? '',
    Recipient: r.recipient,
  };
}

export function clickRecord(r: Selectable<ClicksTable>) {
  return {
    RecordType: 'Click',
    ClickLocation: r.click_location,
    ...agentFields(r),
    OriginalLink: r.original_link,
    MessageID: r.message_id,
    MessageStream: r.stream_id,
    ReceivedAt: iso(r.occurred_at),
    Tag: r.tag ?? '',
    Recipient: r.recipient,
  };
}

async function page<T extends Table>(ctx: AppContext, qb: SelectQueryBuilder<Database, T, object>, q: HitSearch) {
  const [rows, total] = await Promise.all([
    (qb as SelectQueryBuilder<Database, Table, object>).selectAll().orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(q.count).offset(q.offset).execute(),
    countCapped(ctx, qb),
  ]);
  return { total, rows };
}

function filtered<T extends Table>(ctx: AppContext, table: T, serverId: number, q: HitSearch) {
  let qb = (ctx.db.selectFrom(table) as unknown as SelectQueryBuilder<Database, Table, object>)
    .where('server_id', '=', serverId)
    .where('stream_id', '=', q.messagestream || 'outbound');
  if (q.recipient) qb = qb.where(sql`lower(recipient)`, '=', addressFilter(q.recipient));
  if (q.tag) qb = qb.where(ctx.database.sql.tagEquals(sql.ref('tag'), q.tag));
  for (const k of AGENT_FILTERS) {
    const v = q[k];
    if (v) qb = qb.where(k, '=', v);
  }
  return qb;
}

export async function searchOpens(ctx: AppContext, serverId: number, q: HitSearch) {
  const { total, rows } = await page(ctx, filtered(ctx, 'opens', serverId, q), q);
  return { TotalCount: total, Opens: rows.map((r) => openRecord(r as Selectable<OpensTable>)) };
}

export async function searchClicks(ctx: AppContext, serverId: number, q: HitSearch) {
  const { total, rows } = await page(ctx, filtered(ctx, 'clicks', serverId, q), q);
  return { TotalCount: total, Clicks: rows.map((r) => clickRecord(r as Selectable<ClicksTable>)) };
}

function ofMessage(ctx: AppContext, table: Table, serverId: number, messageId: string) {
  return (ctx.db.selectFrom(table) as unknown as SelectQueryBuilder<Database, Table, object>).where('server_id', '=', serverId).where('message_id', '=', messageId);
}

export async function opensOfMessage(ctx: AppContext, serverId: number, messageId: string, q: HitSearch) {
  await requireMessage(ctx, serverId, messageId);
  const { total, rows } = await page(ctx, ofMessage(ctx, 'opens', serverId, messageId), q);
  return { TotalCount: total, Opens: rows.map((r) => openRecord(r as Selectable<OpensTable>)) };
}

export async function clicksOfMessage(ctx: AppContext, serverId: number, messageId: string, q: HitSearch) {
  await requireMessage(ctx, serverId, messageId);
  const { total, rows } = await page(ctx, ofMessage(ctx, 'clicks', serverId, messageId), q);
  return { TotalCount: total, Clicks: rows.map((r) => clickRecord(r as Selectable<ClicksTable>)) };
}
