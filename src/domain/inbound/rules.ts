// Inbound block rules (POST /triggers/inboundRules): an address or a whole domain whose mail is stored as
// Blocked instead of being posted to the application. A rule matches the From address or its domain.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** A rule in its stored form (lowercased), or a 403 naming what is wrong. */
export function normalizeRule(input: unknown): string {
  const rule = typeof input === 'string' ? input.trim().toLowerCase() : '';
  if (rule === '') throw new ApiError(ErrorCode.InvalidRequestFields, 'Rule is required: an email address or a domain.');
  const at = rule.lastIndexOf('@');
  const domain = at < 0 ? rule : rule.slice(at + 1);
  if (rule.length > 254 || (at >= 0 && (at === 0 || /\s/.test(rule.slice(0, at)))) || !DOMAIN.test(domain)) {
    throw new ApiError(ErrorCode.InvalidRequestFields, `Rule '${String(input)}' is neither an email address nor a domain.`);
  }
  return rule;
}

export async function listRules(ctx: AppContext, serverId: number, count: number, offset: number) {
  const [total, rows] = await Promise.all([
    ctx.db.selectFrom('inbound_rules').select((eb) => eb.fn.countAll<number>().as('n')).where('server_id', '=', serverId).executeTakeFirstOrThrow(),
    ctx.db.selectFrom('inbound_rules').select(['id', 'rule']).where('server_id', '=', serverId).orderBy('id').limit(count).offset(offset).execute(),
  ]);
  return { TotalCount: Number(total.n), InboundRules: rows.map((r) => ({ ID: r.id, Rule: r.rule })) };
}

export async function createRule(ctx: AppContext, serverId: number, input: unknown) {
  const rule = normalizeRule(input);
  try {
    const row = await ctx.db
      .insertInto('inbound_rules')
      .values({ server_id: serverId, rule, created_at: ctx.clock.now() })
      .returning(['id', 'rule'])
      .executeTakeFirstOrThrow();
    return { ID: row.id, Rule: row.rule };
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(ErrorCode.InvalidRequestFields, `A rule for '${rule}' already exists.`);
    throw err;
  }
}

export async function deleteRule(ctx: AppContext, serverId: number, id: number) {
  const r = await ctx.db.deleteFrom('inbound_rules').where('server_id', '=', serverId).where('id', '=', id).executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new ApiError(ErrorCode.NotFound, `Inbound rule ${id} not found.`);
  return { ErrorCode: 0, Message: `Rule ID ${id} removed.` };
}

/** The rule that blocks mail from `fromEmail`, if any. */
export async function blockingRule(db: Kysely<Database>, serverId: number, fromEmail: string): Promise<string | null> {
  const email = fromEmail.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  const candidates = at > 0 ? [email, email.slice(at + 1)] : [email];
  const row = await db.selectFrom('inbound_rules').select('rule').where('server_id', '=', serverId).where('rule', 'in', candidates).limit(1).executeTakeFirst();
  return row?.rule ?? null;
}
