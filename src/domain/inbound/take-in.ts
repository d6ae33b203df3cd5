// One message received by the inbound listener, handed to each kind of its recipients: bounce reports
// (intake.ts), servers' inbound mail (receive.ts, once per server), postmaster (postmaster.ts) and DMARC
// aggregate reports (domain/dmarc/store.ts). Each
// outcome is logged and counted; the text returned is the 250 reply.
import type { AppContext } from '../app-context.js';
import type { Logger } from '../../infra/logger.js';
import { takeInDmarc } from '../dmarc/store.js';
import type { DmarcTarget } from '../dmarc/report-address.js';
import type { MessageSource } from '../../infra/spool.js';
import type { Envelope } from './authenticate.js';
import type { InboundMailbox } from './inbound-address.js';
import { takeInReport } from './intake.js';
import { storePostmaster } from './postmaster.js';
import { receiveInbound, type InboundWriter } from './receive.js';
import type { InboundTarget } from './recipients.js';

/** The recipients of the transaction in progress on a connection, by what the listener does with them. */
export interface Rcpts {
  reports: InboundTarget[];
  boxes: InboundMailbox[];
  postmaster: string[];
  dmarc: DmarcTarget[];
}

export const noRcpts = (): Rcpts => ({ reports: [], boxes: [], postmaster: [], dmarc: [] });

export const count = (r: Rcpts): number => r.reports.length + r.boxes.length + r.postmaster.length + r.dmarc.length;


/** One received message to each kind of its recipients: reports, servers' inbound mail, postmaster. Each is
 * parsed on a parser thread (receive.ts, read-on-thread.ts, dmarc/store.ts); only storing happens here. */
export async function takeIn(ctx: AppContext, log: Logger, writer: InboundWriter, message: MessageSource, envelope: Envelope, r: Rcpts): Promise<string> {
  // Read before receiveInbound may move the bytes to its thread.
  const raw = r.reports.length || r.postmaster.length || r.dmarc.length ? await message.read() : Buffer.alloc(0);
  const [outcomes, received, postmaster, dmarc] = await Promise.all([
    r.reports.length ? takeInReport(ctx, raw, r.reports) : [],
    r.boxes.length ? receiveInbound(ctx, writer, message, envelope, r.boxes) : [],
    r.postmaster.length ? storePostmaster(ctx, raw, envelope, r.postmaster) : null,
    r.dmarc.length ? takeInDmarc(ctx, raw, envelope.ip, r.dmarc) : [],
  ]);
  for (const o of dmarc) {
    log.info({ event: 'inbound', ...o, ip: envelope.ip, bytes: message.bytes }, 'DMARC report');
    ctx.metrics.inboundMessages.inc({ kind: o.outcome });
  }
  for (const o of outcomes) {
    log.info({ event: 'inbound', ...o, bytes: message.bytes }, 'inbound report');
    ctx.metrics.inboundMessages.inc({ kind: o.outcome });
  }
  for (const o of received) {
    log.info({ event: 'inbound', ...o, bytes: message.bytes }, 'inbound message');
    ctx.metrics.inboundMessages.inc({ kind: `processing-${o.status.toLowerCase()}` });
  }
  if (postmaster) {
    // The operator reads these (`mailroom postmaster`); warn, so that a log watcher shows them too.
    log.warn({ event: 'inbound', outcome: 'postmaster', id: postmaster.id, duplicate: postmaster.duplicate, from: envelope.mailFrom, ip: envelope.ip, bytes: message.bytes }, 'mail for postmaster');
    ctx.metrics.inboundMessages.inc({ kind: 'postmaster' });
  }
  if (r.reports.length || r.dmarc.length) return '2.6.0 Report received';
  if (received[0]) return `2.6.0 Message received as ${received[0].inboundId}`;
  return postmaster ? `2.6.0 Message received for postmaster as ${postmaster.id}` : '2.6.0 Message received';
}
