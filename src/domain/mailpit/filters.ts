// Mailpit's search terms (query.ts) as SQL over one server's messages. What Mailpit matches in its own
// columns maps to mailroom's: addresses to the recipients (To, Cc, Bcc: name or address) and the From and
// Reply-To as given; free text to the subject, From, bodies, recipients, attachment names and the Tag;
// message-id: to the Message-ID header (`<id@return-path domain>`, ids.ts); tags and the read flag to
// mailpit_state (tags.ts, read-state.ts). Every match is a case-insensitive substring, as Mailpit's LIKE,
// answered by the trigram indexes of migration 0034 through the database's SqlDialect (infra/db/sql-dialect.ts)
// for a Sandbox server's messages; a Live server's (MAILROOM_CAPTURE_DIR) are read.
import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { MessageTextColumn } from '../../infra/db/sql-dialect.js';
import type { Term } from './query.js';

// The builder mixes messages with the left-joined state; its typing is loosened, the columns are checked by tests.
export type Query = SelectQueryBuilder<any, any, any>;

export interface MailpitServer {
  id: number;
  accountId: number;
  sandbox: boolean;
}

type Ctx = Pick<AppContext, 'database' | 'config'>;

const has = (ctx: Ctx, server: MailpitServer, column: MessageTextColumn | MessageTextColumn[], value: string) =>
  ctx.database.sql.messageContains(Array.isArray(column) ? column : [column], value, server.sandbox);
const or = (parts: RawBuilder<SqlBool>[]) => sql<SqlBool>`(${sql.join(parts, sql` or `)})`;

// The server's matching recipients read once (a semi-join), not a probe per message: on PostgreSQL a
// correlated probe pays run-time partition pruning per message (seconds for free text over 100,000 messages).
function recipient(ctx: Ctx, serverId: number, kinds: string[], value: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`messages.id in (select r.message_id from message_recipients r where r.server_id = ${serverId} and r.kind in (${sql.join(kinds)}) and ${ctx.database.sql.recipientContains('r', ['email', 'name'], value)})`;
}

/** The message's tags contain `tag` (case-insensitive, as Mailpit keeps tags unique whatever their case). */
export function tagged(ctx: Pick<AppContext, 'database'>, tag: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`((s.tags is null and lower(coalesce(messages.tag, '')) = ${tag.toLowerCase()}) or (s.tags is not null and ${ctx.database.sql.contains(sql.ref('s.tags'), JSON.stringify(tag))}))`;
}

function condition(ctx: Ctx, server: MailpitServer, t: Term): RawBuilder<SqlBool> {
  const serverId = server.id;
  if (t.kind === 'date') return t.bound === 'after' ? sql<SqlBool>`messages.received_at >= ${t.at}` : sql<SqlBool>`messages.received_at <= ${t.at}`;
  if (t.kind === 'flag') {
    switch (t.flag) {
      case 'read':
        return sql<SqlBool>`coalesce(s.read, 0) = 1`;
      case 'unread':
        return sql<SqlBool>`coalesce(s.read, 0) = 0`;
      case 'tagged':
        return sql<SqlBool>`((s.tags is not null and s.tags <> '[]') or (s.tags is null and coalesce(messages.tag, '') <> ''))`;
      case 'attachment':
        return sql<SqlBool>`messages.attachments <> '[]'`;
      case 'inline':
        // An attachment with a ContentID beside an HTML body is composed as an inline part (delivery/compose.ts).
        return sql<SqlBool>`(messages.html_body is not null and ${ctx.database.sql.contains(sql.ref('messages.attachments'), '"ContentID":"')})`;
    }
  }
  const v = t.value;
  switch (t.field) {
    case 'to':
      return recipient(ctx, serverId, ['To'], v);
    case 'cc':
      return recipient(ctx, serverId, ['Cc'], v);
    case 'bcc':
      return recipient(ctx, serverId, ['Bcc'], v);
    case 'from':
      return has(ctx, server, 'from_raw', v);
    case 'reply-to':
      return has(ctx, server, 'reply_to', v);
    case 'addressed':
      return or([recipient(ctx, serverId, ['To', 'Cc', 'Bcc'], v), has(ctx, server, 'from_raw', v), has(ctx, server, 'reply_to', v)]);
    case 'subject':
      return has(ctx, server, 'subject', v);
    case 'message-id':
      return ctx.database.sql.contains(sql`messages.id || ${`@${ctx.config.returnPathDomain.toLowerCase()}`}`, v.replace(/^<|>$/g, ''));
    case 'tag':
      return tagged(ctx, v);
    case 'text':
      return or([
        has(ctx, server, ['subject', 'from_raw', 'text_body', 'html_body', 'tag', 'attachments'], v),
        recipient(ctx, serverId, ['To', 'Cc', 'Bcc'], v),
      ]);
  }
}

/** Whether the terms read mailpit_state (the join is left out otherwise). */
export const needsState = (terms: Term[]) => terms.some((t) => (t.kind === 'flag' && t.flag !== 'attachment' && t.flag !== 'inline') || (t.kind === 'field' && t.field === 'tag'));

/**
 * The server's messages: all of them on a Sandbox server, through the partial index of migration 0031
 * (`sandbox = 1` written as a literal so that SQLite proves the index applies); a Live server's while
 * MAILROOM_CAPTURE_DIR is set.
 */
export function scope(ctx: Pick<AppContext, 'db' | 'database' | 'config'>, server: MailpitServer, terms: Term[] = [], before?: number): Query {
  let q = (needsState(terms) ? ctx.db.selectFrom('messages').leftJoin('mailpit_state as s', 's.message_id', 'messages.id') : ctx.db.selectFrom('messages')) as unknown as Query;
  q = q.where('messages.server_id', '=', server.id);
  if (server.sandbox) q = q.where(sql<SqlBool>`messages.sandbox = ${sql.lit(1)}`);
  if (before !== undefined) q = q.where('messages.received_at', '<', before);
  for (const t of terms) {
    const c = condition(ctx, server, t);
    q = q.where(t.exclude ? sql<SqlBool>`not ${c}` : c);
  }
  return q;
}
