// Headers mailroom adds to each inbound message before the application sees it:
// - Received-SPF and Authentication-Results with the SPF (RFC 7208), DKIM (RFC 6376) and DMARC (RFC 7489)
//   results, as RFC 8601 defines them, computed by mailauth with DNS through the project's resolver
//   (MAILROOM_DNS_SERVERS);
// - when a spamd is configured (MAILROOM_SPAMD), SpamAssassin's verdict in its customary X-Spam-* headers.
// Runs on a parser thread (prepare-task.ts): the DNS questions go back to the main thread's resolver.
import type { Header } from 'postal-mime';
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
  /** Why the authentication results could not be computed (logged by the caller), or null. */
  warning: string | null;
}

export interface ExamineOptions {
  /** MAILROOM_INBOUND_DOMAIN: the authserv-id. */
  mta: string;
  spamd: { host: string; port: number } | null;
}

/** `resolve`: the listener's cached resolver (infra/dns/cache.ts) over MAILROOM_DNS_SERVERS. */
export async function examine(o: ExamineOptions, resolve: ResolveFn, raw: Buffer, env: Envelope): Promise<Examined> {
  let headers: string;
  let warning: string | null = null;
  try {
    // Loaded on the first message, not at start (its DNS, DKIM and ARC modules are most of a slow start).
    // From the CommonJS module's default export, which a bundle keeps too (deliverability-check.ts).
    const { authenticate } = (await import('mailauth')).default;
    const auth = await authenticate(raw, {
      ip: env.ip,
      helo: env.helo,
      sender: env.mailFrom,
      mta: o.mta,
      disableArc: true,
      disableBimi: true,
      resolver: resolve as (name: string, rrtype: string) => Promise<string[][] | string[]>,
    });
    headers = auth.headers.replace(/\r?\n/g, '\r\n');
  } catch (err) {
    // DNS failures are results (temperror, RFC 8601 2.7), not exceptions; an exception is input mailauth
    // cannot read. The message is still taken: refusing it would only make the sender retry the same bytes.
    warning = (err as Error).message;
    headers = `Authentication-Results: ${o.mta}; none (the message could not be checked)`;
  }
  if (!headers.endsWith('\r\n')) headers += '\r\n';
  let spam: SpamVerdict | null = null;
  if (o.spamd) {
    spam = await checkSpam(o.spamd, raw);
    headers =
      `X-Spam-Checker-Version: SpamAssassin (spamd) on ${o.mta}\r\n` +
      `X-Spam-Status: ${spam.isSpam ? 'Yes' : 'No'}\r\n` +
      `X-Spam-Score: ${spam.score}\r\n` +
      `X-Spam-Tests: ${spam.tests.join(',') || 'none'}\r\n` +
      headers;
  }
  return { headers, spam, warning };
}

/**
 * The fields of the header lines examine() wrote, as postal-mime gives a message's (folds joined, the value
 * trimmed): the lines are mailroom's own, so they need no second MIME parse (which the receive path ran for
 * every message before).
 */
export function headerFields(text: string): Header[] {
  const folded: string[] = [];
  for (const line of text.split('\r\n')) {
    if (folded.length && (line[0] === ' ' || line[0] === '\t')) folded[folded.length - 1] += line;
    else if (line) folded.push(line);
  }
  return folded.map((line) => {
    const sep = line.indexOf(':');
    const key = (sep < 0 ? line : line.slice(0, sep)).trim();
    return { key: key.toLowerCase(), originalKey: key, value: sep < 0 ? '' : line.slice(sep + 1).trim() };
  });
}
