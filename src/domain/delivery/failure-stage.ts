// Where in the SMTP conversation a delivery failed. The transport (transport.ts) records it on each failed
// result so that pacing (pacing/signals.ts) can tell one recipient's deferral from trouble with the whole
// destination, as Postfix's SMTP client tells a recipient's, a message's and a site's failure apart.
import type { SmtpReply } from '../../infra/smtp-client/replies.js';
import { connectFailureResult } from './mta-sts/tls-record.js';

/**
 * - 'connect': no session could be had: the connection was refused, timed out or closed before the session
 *   began, or the host kept cutting fresh connections;
 * - 'session': the server refused the session: its greeting, or its reply to EHLO/HELO, STARTTLS or AUTH;
 * - 'mail', 'rcpt', 'data': the server's reply to this recipient's MAIL FROM, RCPT TO, or DATA (the
 *   command or the end of the message): each recipient has a transaction of its own (VERP);
 * - 'cut': the connection was cut during this recipient's transaction (the others went on over a fresh one);
 * - 'local': no server said anything about it: no route (DNS), a TLS requirement that failed, a message
 *   that could not be composed, or not attempted because the destination asked to slow down.
 */
export type FailureStage = 'connect' | 'session' | 'mail' | 'rcpt' | 'data' | 'cut' | 'local';

/** The stage of a refused transaction, from the command the refusal answered (SmtpError.command). */
export function commandStage(command: string | undefined): FailureStage {
  if (command === 'MAIL FROM') return 'mail';
  if (command === 'RCPT TO') return 'rcpt';
  return 'data';
}

/**
 * The stage of a failure to get a session: 'session' when the server answered (greeting, EHLO, AUTH),
 * 'local' when TLS could not be had as required (a policy or certificate matter, not the destination
 * asking for less), else 'connect'.
 */
export function sessionFailureStage(err: unknown): FailureStage {
  if (connectFailureResult(err)) return 'local';
  return (err as { reply?: SmtpReply } | null)?.reply?.code ? 'session' : 'connect';
}
