// Writes accepted messages: the message, one row per recipient (To, Cc, Bcc) and per Metadata field, the
// attachments (base64), a Processed event (through recordEvents, so webhooks and statistics follow in the
// same transaction) and the delivery jobs. The caller owns the transaction; nothing here commits.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { isBounceTestingAddress } from '../delivery/bounce-testing.js';
import { deliveryJobsFor } from '../delivery/jobs.js';
import { recordEvents } from '../events/record.js';
import type { MessageEventInput } from '../event-types.js';
import { enqueueJobs, type NewJob } from '../../infra/jobs/enqueue.js';
import { insertAcceptedRows } from '../message-store/store-accepted.js';
import type { ServerSettings } from './checks.js';
import { mailpitWebhookJob } from './mailpit-webhook-job.js';
import type { PreparedMessage } from './types.js';

export interface AcceptedMessage {
  id: string;
  serverId: number;
  message: PreparedMessage;
  settings: ServerSettings;
  /** Compiled from this bulk request (src/domain/bulk): its attachments are stored there, once, and its
   * deliveries go to the bulk queue, behind no transactional message. */
  bulk?: { id: string; queue: string };
}

/** What storing needs of the process. */
export type StoreContext = Pick<AppContext, 'config' | 'database' | 'clock'>;

export async function storeMessages(trx: Kysely<Database>, ctx: StoreContext, accepted: AcceptedMessage[], now: number): Promise<void> {
  if (accepted.length === 0) return;
  const messages: unknown[][] = [];
  const recipients: unknown[][] = [];
  const attachments: unknown[][] = [];
  const metadata: unknown[][] = [];
  const events: MessageEventInput[] = [];
  const jobs: NewJob[] = [];
  for (const { id, serverId, message: m, settings, bulk } of accepted) {
    // A Sandbox server records the message as if it had gone out and never delivers it: status Sent,
    // recipients settled at once, no delivery job (docs/reference/servers.md). Recipients at the
    // bounce-testing domain are the exception: their job records their fake bounces (delivery/fake-bounce.ts),
    // and sends nothing.
    const sandbox = settings.sandbox;
    const status = sandbox ? 'Sent' : 'Queued';
    const trackOpens = m.trackOpens ?? settings.trackOpens;
    const trackLinks = m.trackLinks ?? settings.trackLinks;
    // The checksums (checksums.ts) stay beside the name and size when the content is dropped.
    const attachmentList = m.attachments.map((a) => ({ Name: a.name, ContentType: a.contentType, ContentID: a.contentId, ContentLength: a.size, Checksums: a.checksums }));
    // In the columns' order of message-store/store-accepted.ts.
    messages.push([
      id, serverId, m.streamId, m.fromEmail, m.fromRaw, m.subject, m.tag, m.htmlBody, m.textBody, m.replyTo, JSON.stringify(m.headers),
      JSON.stringify(m.metadata), trackOpens ? 1 : 0, trackLinks, JSON.stringify(attachmentList), status, sandbox ? 1 : 0, now, null, bulk?.id ?? null,
    ]);
    for (const [key, value] of Object.entries(m.metadata)) metadata.push([id, key, serverId, m.streamId, value, now]);
    const fakes = new Set(sandbox ? m.recipients.filter((r) => isBounceTestingAddress(ctx.config, r.email)) : []);
    for (const r of m.recipients) {
      const settled = sandbox && !fakes.has(r);
      recipients.push([id, serverId, m.streamId, r.kind, r.email, r.name, settled ? 'Sent' : 'Queued', now, settled ? now : null]);
    }
    // A Live message's content is kept until it is handed off (delivery/outcome.ts clears it); a Sandbox
    // message's for its retention, so that a test can download what its application attached (Mailpit's
    // part API, the console), as from Mailpit.
    if (!bulk) m.attachments.forEach((a, position) => attachments.push([id, position, a.name, a.contentType, a.contentId, a.content, a.size]));
    events.push({
      messageId: id,
      serverId,
      streamId: m.streamId,
      type: 'Processed',
      recipient: m.recipients[0].email,
      occurredAt: now,
      details: { Summary: `Accepted for ${m.recipients.length} recipient(s)` },
      tag: m.tag,
      metadata: m.metadata,
      tracking: { opens: trackOpens, links: trackLinks !== 'None' },
    });
    const delivered = sandbox ? [...fakes] : m.recipients;
    if (delivered.length > 0) jobs.push(...deliveryJobsFor(id, delivered.map((r) => r.email), now, bulk?.queue));
    if (sandbox && ctx.config.mailpitWebhookUrl) jobs.push(mailpitWebhookJob(id, serverId, now));
  }
  await insertAcceptedRows(trx, ctx.database.sql, { messages, recipients, metadata, attachments });
  await recordEvents(trx, ctx, events);
  await enqueueJobs(trx, jobs, now);
}
