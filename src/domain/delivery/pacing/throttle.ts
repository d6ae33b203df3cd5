// Whether an SMTP reply looks like "you are sending too much, slow down", rather than a refusal for some
// other reason. Pure. Whether it slows the whole destination or defers one recipient depends also on where
// it was said (signals.ts): this only says what the reply looks like.
//
// - 421: the server is closing the channel (RFC 5321 3.8, 4.2.2), whatever it gives as the reason: going on
//   at once would only open new connections to be closed again.
// - 4.7.x on a 4xx reply: a temporary security or policy refusal (RFC 3463 3.8), which is how the large
//   providers throttle: Gmail's "450 4.7.28 ... unusual rate", Outlook's "451 4.7.500 Server busy", Yahoo's
//   "421 4.7.0 [TSS04] ... temporarily deferred".
// - Known throttling texts on other 4xx codes ("rate limited", "too many connections", "try again later").
//
// Not throttling: greylisting (often 450 4.7.1 "Greylisted, try again later"), which is about one
// (address, sender, recipient) triplet and ends by itself on the retry schedule; a busy mailbox (4.2.x, e.g.
// Gmail's per-user "receiving mail at a rate"); permanent refusals (5xx).
import { localReply, type SmtpReply } from '../../../infra/smtp-client/replies.js';

const THROTTLE_TEXT = /rate[- ]?limit|too many (connections|messages|recipients|sessions|concurrent)|try again later|throttl|temporarily deferred|sending rate|unusual rate|server busy|\[TS[SP]?0\d\]/i;
const GREYLIST = /gr[ae]ylist/i;

export function isThrottling(reply: SmtpReply | undefined | null): boolean {
  if (!reply || reply.code < 400 || reply.code >= 500) return false;
  if (GREYLIST.test(reply.text)) return false;
  if (reply.code === 421) return true;
  if (reply.enhanced?.startsWith('4.2.')) return false;
  if (reply.enhanced?.startsWith('4.7.')) return true;
  return THROTTLE_TEXT.test(reply.text);
}

/**
 * The result of an item not tried because its destination throttled: the server's own reply when it refused
 * the session itself (at the greeting: it answered for every item), else a local "not attempted" that
 * names it (stage 'local', so pacing counts the throttle once).
 */
export function notAttempted(
  t: { target: { serverName: string; host: string }; reply: SmtpReply; greeting: boolean },
  anyTried: boolean,
): { ok: false; reply: SmtpReply; server: string; ip: string; network: boolean; stage: 'session' | 'local' } {
  const where = { server: t.target.serverName, ip: t.target.host };
  if (t.greeting && !anyTried) return { ok: false, reply: t.reply, ...where, network: false, stage: 'session' };
  return { ok: false, reply: localReply(451, '4.4.5', `Not attempted: ${t.target.serverName} asked to slow down`), ...where, network: true, stage: 'local' };
}
