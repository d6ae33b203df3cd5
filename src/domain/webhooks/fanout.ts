// Turns recorded events into webhook notifications in the event's own transaction: no event without its
// notification. Each enabled webhook of the event's (server, stream) gets one notification row (the exact
// body, built now) and one 'webhook' job. Events without a trigger (Processed, Transient) cost nothing; the
// others cost one indexed query per call when no webhook exists.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { fromJson } from '../../infra/db/util.js';
import type { RecordedEvent } from '../event-types.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import { type BounceRow, eventPayload, type MessageFacts } from './payloads.js';
import { parseTriggers, TRIGGER_OF, type Triggers } from './triggers.js';
import { webhookJob } from './queue.js';

interface HookRow {
  id: number;
  server_id: number;
  stream_id: string;
  triggers: Triggers;
}

function wants(h: HookRow, e: RecordedEvent): boolean {
  const key = TRIGGER_OF[e.type];
  if (!key || !h.triggers[key].Enabled) return false;
  if (key === 'Open' && h.triggers.Open.PostFirstOpenOnly) return (e.details as { FirstOpen?: unknown }).FirstOpen === true;
  return true;
}

export async function fanOutWebhooks(trx: Kysely<Database>, ctx: Pick<AppContext, 'clock'>, events: RecordedEvent[]): Promise<void> {
  const relevant = events.filter((e) => TRIGGER_OF[e.type] !== undefined);
  if (relevant.length === 0) return;

  // One query for every (server, stream) of this call.
  const serverIds = [...new Set(relevant.map((e) => e.serverId))];
  const rows = await trx.selectFrom('webhooks').select(['id', 'server_id', 'stream_id', 'triggers']).where('server_id', 'in', serverIds).execute();
  if (rows.length === 0) return;
  const byStream = new Map<string, HookRow[]>();
  for (const r of rows) {
    const k = `${r.server_id}|${r.stream_id}`;
    const list = byStream.get(k) ?? [];
    list.push({ ...r, triggers: parseTriggers(r.triggers) });
    byStream.set(k, list);
  }

  const matches: Array<{ e: RecordedEvent; h: HookRow }> = [];
  for (const e of relevant) {
    for (const h of byStream.get(`${e.serverId}|${e.streamId}`) ?? []) if (wants(h, e)) matches.push({ e, h });
  }
  if (matches.length === 0) return;

  const facts = await messageFacts(trx, matches.map((m) => m.e));
  const bounces = await bounceRows(trx, matches.map((m) => m.e));
  const now = ctx.clock.now();
  const cache = new Map<string, { body: string; type: string }>();
  const values = matches.map(({ e, h }) => {
    const includeContent = (e.type === 'Bounced' && h.triggers.Bounce.IncludeContent) || (e.type === 'SpamComplaint' && h.triggers.SpamComplaint.IncludeContent);
    const ck = `${e.id}|${includeContent}`;
    let built = cache.get(ck);
    if (built === undefined) {
      const bounceId = (e.details as { BounceID?: unknown }).BounceID;
      const payload = eventPayload(e, facts.get(e.id)!, typeof bounceId === 'number' ? bounces.get(bounceId) : undefined, includeContent);
      built = { body: JSON.stringify(payload), type: String(payload.RecordType) };
      cache.set(ck, built);
    }
    return {
      webhook_id: h.id,
      server_id: e.serverId,
      event_id: e.id,
      record_type: built.type,
      payload: built.body,
      status: 'pending',
      attempts: 0,
      created_at: now,
      next_attempt_at: now,
    };
  });

  // Chunked: SQLite allows at most 32766 bound parameters per statement.
  for (let i = 0; i < values.length; i += 500) {
    const chunk = values.slice(i, i + 500);
    const ids = await trx.insertInto('webhook_notifications').values(chunk).returning('id').execute();
    await enqueueJobs(trx, ids.map((r, j) => webhookJob(r.id, chunk[j].webhook_id, now)), now);
  }
}

/** Tag and Metadata of each event: from the event when its caller passed them, else from its message. */
async function messageFacts(trx: Kysely<Database>, events: RecordedEvent[]): Promise<Map<number, MessageFacts>> {
  const out = new Map<number, MessageFacts>();
  const missing = new Set<string>();
  for (const e of events) {
    if (e.tag === undefined && e.metadata === undefined) missing.add(e.messageId);
  }
  const loaded = new Map<string, MessageFacts>();
  const ids = [...missing];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await trx.selectFrom('messages').select(['id', 'tag', 'metadata']).where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) loaded.set(r.id, { tag: r.tag, metadata: fromJson<Record<string, string>>(r.metadata, {}) });
  }
  for (const e of events) {
    const fromMsg = loaded.get(e.messageId);
    out.set(e.id, {
      tag: e.tag !== undefined ? e.tag : (fromMsg?.tag ?? null),
      metadata: e.metadata ?? fromMsg?.metadata ?? {},
    });
  }
  return out;
}

async function bounceRows(trx: Kysely<Database>, events: RecordedEvent[]): Promise<Map<number, BounceRow>> {
  const ids = [
    ...new Set(
      events
        .filter((e) => e.type === 'Bounced' || e.type === 'SpamComplaint')
        .map((e) => (e.details as { BounceID?: unknown }).BounceID)
        .filter((v): v is number => typeof v === 'number'),
    ),
  ];
  const out = new Map<number, BounceRow>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await trx.selectFrom('bounces').selectAll().where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) out.set(r.id, r);
  }
  return out;
}
