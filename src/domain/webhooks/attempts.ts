// Recent delivery attempts of one webhook (GET /webhooks/{id}/deliveries, beyond the API).
import type { AppContext } from '../app-context.js';
import { iso } from '../../infra/time.js';

const OUTCOME: Record<string, string> = { delivered: 'Delivered', retrying: 'Retrying', failed: 'Failed' };

/** The columns of an attempt and its notification that attemptView reads. */
export interface AttemptRow {
  id: number;
  notification_id: number;
  event_id: number;
  record_type: string;
  attempt: number;
  outcome: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  started_at: number;
  status: string;
  next_attempt_at: number | null;
}

/** One attempt as the deliveries list shows it (this webhook's, or the server's in server-attempts.ts). */
export function attemptView(r: AttemptRow) {
  return {
    ID: r.id,
    NotificationID: r.notification_id,
    EventID: r.event_id,
    RecordType: r.record_type,
    Attempt: r.attempt,
    Status: OUTCOME[r.outcome] ?? r.outcome,
    ResponseCode: r.status_code,
    Error: r.error,
    DurationMs: r.duration_ms,
    AttemptedAt: iso(r.started_at),
    NotificationStatus: OUTCOME[r.status] ?? (r.status === 'pending' ? 'Pending' : r.status),
    NextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
  };
}

export async function listAttempts(ctx: AppContext, webhookId: number, count: number, offset: number) {
  const [total, rows] = await Promise.all([
    ctx.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_notifications as n', 'n.id', 'a.notification_id')
      .select(['a.id', 'a.notification_id', 'a.event_id', 'a.attempt', 'a.outcome', 'a.status_code', 'a.error', 'a.started_at', 'a.duration_ms', 'n.record_type', 'n.status', 'n.next_attempt_at'])
      .where('a.webhook_id', '=', webhookId)
      .orderBy('a.id', 'desc')
      .limit(count)
      .offset(offset)
      .execute(),
  ]);
  return {
    TotalCount: Number(total.n),
    Deliveries: rows.map(attemptView),
  };
}
