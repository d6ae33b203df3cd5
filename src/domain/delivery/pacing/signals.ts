// Which failed deliveries say something about the whole destination, so that pacing slows it, and which are
// one recipient's deferral, which that recipient alone waits out on its retry schedule. Pure.
//
// Postfix draws the same line: its SMTP client fails the whole site on a connection or session failure and
// one recipient on a 4xx to its RCPT TO (smtp_trouble.c), and its queue manager slows or suspends a
// destination only on connection and handshake trouble (SCHEDULER_README, "concurrency feedback" and "dead
// destinations"). Through a relay the relay is the destination: its own signals pace it, and a reply it
// relays about one address does not.
//
// About the destination (slowsDestination):
// - 421 at any stage: the server is closing the channel (RFC 5321 3.8);
// - no session: a refused, timed-out or repeatedly cut connection ('connect'), or a refused greeting,
//   EHLO or AUTH ('session');
// - a throttling reply (throttle.ts) to MAIL FROM, before any recipient was named;
// - a throttling reply to RCPT TO or DATA whose own words are about the sending side: Gmail's "unusual rate
//   ... originating from your IP address", "too many connections", Yahoo's [TSS04], Outlook's "server
//   busy", Postfix's delayed "Client host rejected" (smtpd_delay_reject answers client checks at RCPT).
// About one recipient: any other reply to its RCPT TO or DATA, "451 4.7.1 Try again later" (the greylisting
// wording of several MTAs) included, and a connection cut during its transaction. The same throttling reply
// for several recipients in a short time speaks for the destination again (window.ts, sameReplyKey).
import type { SmtpReply } from '../../../infra/smtp-client/replies.js';
import type { FailureStage } from '../failure-stage.js';
import { isThrottling } from './throttle.js';

/** What pacing reads of a delivery result (transport.ts SendResult). */
export interface Attempt {
  ok: boolean;
  reply: SmtpReply;
  /** Absent (a result written without one): judged as a reply to the recipient's own transaction. */
  stage?: FailureStage;
  exchange?: { to: string };
}

/** Words that put the blame on the sending side (its address, its rate, its connections), whatever the command. */
const ABOUT_THE_SENDER =
  /unusual rate|sending rate|too many (concurrent |simultaneous )?(connections|sessions)|from (your|this) ip|your ip address|client host rejected|helo command rejected|server busy|\[TS[SP]?0\d\]|temporarily deferred due to/i;

/** Replies are short; what is read of one is bounded whatever a server sends. */
const READ = 500;

/** Why this failed result says the whole destination must slow down (logged), or null when it does not. */
export function slowingReason(r: Attempt): string | null {
  if (r.ok) return null;
  const stage = r.stage ?? 'rcpt';
  if (stage === 'local' || stage === 'cut') return null;
  if (stage === 'connect') return 'no connection';
  if (stage === 'session') return 'session refused';
  if (r.reply.code === 421) return 'closing the connection (421)';
  if (!isThrottling(r.reply)) return null;
  if (stage === 'mail') return 'throttled at MAIL FROM';
  return ABOUT_THE_SENDER.test(r.reply.text.slice(0, READ)) ? 'a reply about the sending side' : null;
}

export function slowsDestination(r: Attempt): boolean {
  return slowingReason(r) !== null;
}

/** The first result of a delivery that says the destination must slow down, and why; or null. */
export function destinationSignal<T extends Attempt>(results: readonly T[]): { attempt: T; why: string } | null {
  for (const attempt of results) {
    const why = slowingReason(attempt);
    if (why) return { attempt, why };
  }
  return null;
}

/**
 * For one recipient's throttling-looking deferral (a 4.7.x or "try again later" to its RCPT TO or DATA that
 * did not slow the destination by itself): the key under which the same reply to other recipients is counted
 * (code, enhanced code and words, with addresses and numbers left out: servers name the recipient, or a
 * queue id, in the text). Null for anything else.
 */
export function sameReplyKey(r: Attempt): string | null {
  if (r.ok || !r.exchange || slowsDestination(r)) return null;
  const stage = r.stage ?? 'rcpt';
  if ((stage !== 'rcpt' && stage !== 'data') || !isThrottling(r.reply)) return null;
  const words = r.reply.text
    .slice(0, READ)
    .toLowerCase()
    .split(/\s+/)
    .map((w) => (w.includes('@') ? '@' : w.replace(/\d+/g, '#')));
  return `${r.reply.code} ${r.reply.enhanced ?? '-'} ${words.join(' ')}`;
}
