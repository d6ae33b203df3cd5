// Every fact about a message (processed, delivered, bounced, opened, ...) is recorded here, in the caller's
// transaction, together with everything that must follow from it: the webhook notifications (no event
// without its notification) and the permanent daily statistics counters.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { countStats } from '../stats/counters.js';
import { fanOutWebhooks } from '../webhooks/fanout.js';
import type { MessageEventInput, RecordedEvent } from '../event-types.js';

const EVENT_COLUMNS = ['message_id', 'server_id', 'stream_id', 'type', 'recipient', 'occurred_at', 'details'] as const;

export async function recordEvents(trx: Kysely<Database>, ctx: Pick<AppContext, 'database' | 'clock'>, events: MessageEventInput[]): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const recorded: RecordedEvent[] = [];
  // Raw multi-row SQL (src/infra/db/raw-insert.ts): the query builder's compilation costs more per row than
  // SQLite needs to store it, and the sending path records one event per message.
  const rows = events.map((e) => [e.messageId, e.serverId, e.streamId, e.type, e.recipient, e.occurredAt, JSON.stringify(e.details ?? {})]);
  const ids = await ctx.database.sql.insertRowsWith(trx, 'message_events', EVENT_COLUMNS, rows, 'returning "id"', 500);
  events.forEach((e, j) => recorded.push({ ...e, id: Number(ids[j].id) }));
  await fanOutWebhooks(trx, ctx, recorded);
  await countStats(trx, ctx, recorded);
  return recorded;
}

export async function recordEvent(trx: Kysely<Database>, ctx: AppContext, event: MessageEventInput): Promise<RecordedEvent> {
  const [e] = await recordEvents(trx, ctx, [event]);
  return e;
}
