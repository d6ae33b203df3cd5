// Headers mailroom adds to each inbound message before the application sees it:
// - Received-SPF and Authentication-Results with the SPF (RFC 7208), DKIM (RFC 6376) and DMARC (RFC 7489)
//   results, as RFC 8601 defines them, computed by mailauth with DNS through the project's resolver
//   (MAILROOM_DNS_SERVERS);
// - when a spamd is configured (MAILROOM_SPAMD), SpamAssassin's verdict in its customary X-Spam-* headers.
import { authenticate } from 'mailauth';
import type { AppContext } from '../app-context.js';
import type { ResolveFn } from '../../infra/dns/cache.js';
import { checkSpam, type SpamVerdict } from '../../infra/spamd/spamc.js';

export interface Envelope {
  /** The SMTP client's address, the EHLO name it gave and the MAIL FROM address ('' for a null path). */
  ip: string;
  helo: string;
  mailFrom: string;
}

export interface Examined {
  /** Header lines to put above the message, CRLF-terminated. */
  headers: string;
  spam: SpamVerdict | null;
}

/** `resolve`: the listener's cached resolver (infra/dns/cache.ts) over MAILROOM_DNS_SERVERS. */
export async function examine(ctx: AppContext, resolve: ResolveFn, raw: Buffer, env: Envelope): Promise<Examined> {
  let headers: string;
  try {
    const auth = await authenticate(raw, {
      ip: env.ip,
      helo: env.helo,
      sender: env.mailFrom,
      mta: ctx.config.inboundDomain,
      disableArc: true,
      disableBimi: true,
      resolver: resolve as (name: string, rrtype: string) => Promise<string[][] | string[]>,
    });
    headers = auth.headers.replace(/\r?\n/g, '\r\n');
  } catch (err) {
    // DNS failures are results (temperror, RFC 8601 2.7), not exceptions; an exception is input mailauth
    // cannot read. The message is still taken: refusing it would only make the sender retry the same bytes.
    ctx.logger.warn({ err }, 'inbound: authentication results could not be computed');
    headers = `Authentication-Results: ${ctx.config.inboundDomain}; none (the message could not be checked)`;
  }
  if (!headers.endsWith('\r\n')) headers += '\r\n';
  let spam: SpamVerdict | null = null;
  if (ctx.config.spamd) {
    spam = await checkSpam(ctx.config.spamd, raw);
    headers =
      `X-Spam-Checker-Version: SpamAssassin (spamd) on ${ctx.config.inboundDomain}\r\n` +
      `X-Spam-Status: ${spam.isSpam ? 'Yes' : 'No'}\r\n` +
      `X-Spam-Score: ${spam.score}\r\n` +
      `X-Spam-Tests: ${spam.tests.join(',') || 'none'}\r\n` +
      headers;
  }
  return { headers, spam };
}
