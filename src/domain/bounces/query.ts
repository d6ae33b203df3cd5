// Reading bounces of one server: the list with its filters, one record, its dump, the delivery stats.
// Every query is filtered by the caller's server id.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { MAX_ROW_ID } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { parseFilterDate } from '../../infra/time.js';
import { bounceRows, bounceView, type BounceRow } from './bounce-view.js';
import { BOUNCE_TYPES } from './types.js';

export interface BounceFilters {
  count: number;
  offset: number;
  type?: string;
  inactive?: boolean;
  emailfilter?: string;
  tag?: string;
  messageid?: string;
  fromdate?: string;
  todate?: string;
  messagestream?: string;
}

/** count + offset may reach at most this deep (docs/reference/bounces.md). */
export const MAX_DEPTH = 10_000;

const typeByLower = new Map(Object.keys(BOUNCE_TYPES).map((t) => [t.toLowerCase(), t]));

function dateFilter(text: string | undefined, end: boolean, name: string): number | null {
  if (text === undefined || text === '') return null;
  const at = parseFilterDate(text, end);
  if (at === null) throw new ApiError(ErrorCode.BounceQueryError, `${name} is not a date: '${text}'.`);
  return at;
}

export async function listBounces(ctx: AppContext, serverId: number, f: BounceFilters): Promise<{ TotalCount: number; Bounces: unknown[] }> {
  if (f.count + f.offset > MAX_DEPTH) throw new ApiError(ErrorCode.BounceQueryError, `count + offset must not exceed ${MAX_DEPTH}.`);
  let type: string | undefined;
  if (f.type !== undefined && f.type !== '') {
    type = typeByLower.get(f.type.toLowerCase());
    if (!type) throw new ApiError(ErrorCode.BounceQueryError, `Unknown bounce type '${f.type}'.`);
  }
  const from = dateFilter(f.fromdate, false, 'fromdate');
  const to = dateFilter(f.todate, true, 'todate');

  let q = bounceRows(ctx.db).where('b.server_id', '=', serverId);
  if (type) q = q.where('b.type', '=', type);
  if (f.inactive === true) q = q.where('b.inactive', '=', 1).where('s.id', 'is not', null);
  if (f.inactive === false) q = q.where((eb) => eb.or([eb('b.inactive', '=', 0), eb('s.id', 'is', null)]));
  if (f.emailfilter) q = q.where(ctx.database.sql.contains(sql.ref('b.email'), f.emailfilter));
  if (f.tag) q = q.where(ctx.database.sql.tagEquals(sql.ref('b.tag'), f.tag));
  if (f.messageid) q = q.where('b.message_id', '=', f.messageid.toLowerCase());
  if (from !== null) q = q.where('b.bounced_at', '>=', from);
  if (to !== null) q = q.where('b.bounced_at', '<=', to);
  if (f.messagestream) q = q.where('b.stream_id', '=', f.messagestream);

  const total = await q
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = (await q.orderBy('b.bounced_at', 'desc').orderBy('b.id', 'desc').limit(f.count).offset(f.offset).execute()) as BounceRow[];
  return { TotalCount: Number(total.n), Bounces: rows.map((r) => bounceView(r)) };
}

/** Path ids are digits only; anything else names no bounce. */
export function parseBounceId(text: string): number {
  if (!/^\d{1,15}$/.test(text.trim())) throw new ApiError(ErrorCode.BounceIdRequired, 'A numeric BounceID is required.');
  const id = Number(text.trim());
  // Bounce ids are 32-bit on PostgreSQL; a larger number names no bounce (and must not overflow the query).
  if (id > MAX_ROW_ID) throw new ApiError(ErrorCode.BounceNotFound, `Bounce ${id} not found.`);
  return id;
}

async function findRow(ctx: AppContext, serverId: number, id: number): Promise<BounceRow> {
  const row = await bounceRows(ctx.db).where('b.server_id', '=', serverId).where('b.id', '=', id).executeTakeFirst();
  if (!row) throw new ApiError(ErrorCode.BounceNotFound, `Bounce ${id} not found.`);
  return row as BounceRow;
}

export async function getBounce(ctx: AppContext, serverId: number, id: number): Promise<Record<string, unknown>> {
  const row = await findRow(ctx, serverId, id);
  const d = await ctx.db.selectFrom('bounces').select('dump').where('id', '=', id).where('server_id', '=', serverId).executeTakeFirst();
  return bounceView(row, d?.dump ?? null);
}

export async function bounceDump(ctx: AppContext, serverId: number, id: number): Promise<{ Body: string }> {
  const d = await ctx.db.selectFrom('bounces').select('dump').where('id', '=', id).where('server_id', '=', serverId).executeTakeFirst();
  if (!d) throw new ApiError(ErrorCode.BounceNotFound, `Bounce ${id} not found.`);
  return { Body: d.dump ?? '' };
}

export async function deliveryStats(ctx: AppContext, serverId: number) {
  const inactive = await ctx.db
    .selectFrom('suppressions')
    .select(sql<number>`count(distinct email)`.as('n'))
    .where('server_id', '=', serverId)
    .executeTakeFirstOrThrow();
  const byType = await ctx.db
    .selectFrom('bounces')
    .select(['type', 'name', (eb) => eb.fn.countAll<number>().as('n')])
    .where('server_id', '=', serverId)
    .groupBy(['type', 'name'])
    .orderBy('type')
    .execute();
  const all = byType.reduce((s, r) => s + Number(r.n), 0);
  return {
    InactiveMails: Number(inactive.n),
    Bounces: [{ Name: 'All', Count: all }, ...byType.map((r) => ({ Type: r.type, Name: r.name, Count: Number(r.n) }))],
  };
}
