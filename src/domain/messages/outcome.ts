// What became of a message, as the console shows it: Delivered, Bounced (hard or soft), Spam complaint,
// Queued, Failed, or for a Sandbox server "Captured, not sent". The API's Status keeps the hosted service's
// values (Queued, Sent: a bounced message is Sent there, its bounce in the events); the console's reader asks
// what happened, which the events tell. One query for a whole page of messages, never one per row.
import type { AppContext } from '../app-context.js';
import { bounceType } from '../bounces/types.js';
import { fromJson } from '../../infra/db/util.js';

export type OutcomeKind = 'delivered' | 'hard-bounce' | 'soft-bounce' | 'spam' | 'queued' | 'failed' | 'captured' | 'sent';

export interface Outcome {
  kind: OutcomeKind;
  label: string;
  /** How many recipients this outcome concerns, of how many, when they differ (a bounce among deliveries). */
  of?: { count: number; total: number };
}

const LABELS: Record<OutcomeKind, string> = {
  delivered: 'Delivered',
  'hard-bounce': 'Bounced (hard)',
  'soft-bounce': 'Bounced (soft)',
  spam: 'Spam complaint',
  queued: 'Queued',
  failed: 'Failed',
  captured: 'Captured, not sent',
  sent: 'Sent',
};

/** The events that settle a recipient; opens and clicks say nothing more about the outcome. */
const SETTLING = ['Delivered', 'Bounced', 'SpamComplaint'];

interface MessageFacts {
  id: string;
  status: string;
  sandbox: boolean;
  recipients: number;
}

/** The outcome of one message from its status and its settling events (type, and a bounce's Type). */
export function outcomeOf(m: MessageFacts, events: Array<{ type: string; recipient: string; bounceType?: string }>): Outcome {
  const make = (kind: OutcomeKind, count?: number): Outcome => {
    const total = m.recipients;
    return count !== undefined && total > 1 && count < total ? { kind, label: LABELS[kind], of: { count, total } } : { kind, label: LABELS[kind] };
  };
  // The worst outcome any recipient met names the message: a complaint, then a bounce, then a delay.
  const who = (pred: (e: (typeof events)[number]) => boolean) => new Set(events.filter(pred).map((e) => e.recipient.toLowerCase())).size;
  const complaints = who((e) => e.type === 'SpamComplaint');
  if (complaints) return make('spam', complaints);
  const hard = who((e) => e.type === 'Bounced' && bounceType(e.bounceType ?? 'Unknown').inactive);
  if (hard) return make('hard-bounce', hard);
  const soft = who((e) => e.type === 'Bounced');
  if (soft) return make('soft-bounce', soft);
  // Sandbox mail is kept, never sent; a fake bounce (delivery/fake-bounce.ts) is shown as the bounce above.
  if (m.sandbox) return make('captured');
  if (m.status === 'Queued') return make('queued');
  if (m.status === 'Failed') return make('failed');
  const delivered = who((e) => e.type === 'Delivered');
  if (delivered) return make('delivered');
  return make(m.status === 'Bounced' ? 'soft-bounce' : 'sent');
}

/** The outcomes of a page of messages: their settling events read in one query by message id (events_message). */
export async function outcomesOf(ctx: AppContext, serverId: number, messages: MessageFacts[]): Promise<Map<string, Outcome>> {
  const ids = messages.map((m) => m.id);
  const byMessage = new Map<string, Array<{ type: string; recipient: string; bounceType?: string }>>();
  if (ids.length) {
    const rows = await ctx.db
      .selectFrom('message_events')
      .select(['message_id', 'type', 'recipient', 'details'])
      .where('message_id', 'in', ids)
      .where('server_id', '=', serverId)
      .where('type', 'in', SETTLING)
      .execute();
    for (const r of rows) {
      const list = byMessage.get(r.message_id) ?? [];
      list.push({ type: r.type, recipient: r.recipient, bounceType: r.type === 'Bounced' ? String(fromJson<{ Type?: unknown }>(r.details, {}).Type ?? '') : undefined });
      byMessage.set(r.message_id, list);
    }
  }
  return new Map(messages.map((m) => [m.id, outcomeOf(m, byMessage.get(m.id) ?? [])]));
}
