// Where mail for a domain goes: the configured relay, or the domain's MX hosts (RFC 5321 5.1) resolved
// through ctx.dns (MAILROOM_DNS_SERVERS), each expanded to its addresses in the order they are tried.
// The domain's MTA-STS policy (RFC 8461) is looked up alongside the MX records: in enforce mode only the
// hosts it lists are used, each with STARTTLS required and its certificate verified.
import { isIP } from 'node:net';
import type { AppContext } from '../app-context.js';
import { localReply, type SmtpReply } from '../../infra/smtp-client/replies.js';
import { stsPolicyFor, stsTarget } from './mta-sts/apply.js';
import { refusedRecord, type TlsRecord } from './mta-sts/tls-record.js';
import type { SmtpTarget } from './smtp-target.js';

export type { SmtpTarget };

/** A DNS answer that settles the fate of the recipients without an SMTP conversation. */
export class RoutingError extends Error {
  constructor(
    message: string,
    /** The reply the outcome is classified by, e.g. 556 5.1.10 for a null MX (RFC 7505 4.1). */
    readonly reply: SmtpReply,
    readonly permanent: boolean,
    /** Set when a TLS policy refused every host (recorded with the deferral). */
    readonly tls?: TlsRecord,
  ) {
    super(message);
  }
}

const NO_RECORDS = new Set(['ENODATA']);
const NO_DOMAIN = new Set(['ENOTFOUND', 'NXDOMAIN']);

async function addresses(ctx: AppContext, host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  // IPv4 first: many hosts have no IPv6 route, and a failed connect only costs the next try.
  const [v4, v6] = await Promise.allSettled([ctx.dns.resolve4(host), ctx.dns.resolve6(host)]);
  return [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
}

/** Stable order by preference; equal preferences are shuffled to spread load (RFC 5321 5.1). */
function byPreference<T extends { priority: number }>(records: T[]): T[] {
  return records
    .map((r) => ({ r, k: Math.random() }))
    .sort((a, b) => a.r.priority - b.r.priority || a.k - b.k)
    .map((x) => x.r);
}

export async function resolveTargets(ctx: AppContext, domain: string): Promise<SmtpTarget[]> {
  const relay = ctx.config.smtpRelay;
  if (relay) {
    return [
      {
        host: relay.host,
        port: relay.port,
        secure: relay.secure,
        serverName: relay.host,
        auth: relay.user !== undefined ? { user: relay.user, pass: relay.pass ?? '' } : undefined,
        verifyTls: true,
        requireTls: false,
        relay: true,
      },
    ];
  }
  // The policy look-up (DNS TXT, then the cache or an HTTPS fetch) runs while the MX records are asked for;
  // it never throws.
  const policy = stsPolicyFor(ctx, domain, ctx.smtpPool.stsFetchFailures);
  const hosts = await mxHosts(ctx, domain);
  const sts = await policy;
  const port = ctx.config.mxPort;
  let allowed = hosts;
  if (sts.mode === 'enforce') {
    // RFC 8461 4.1: an MX host the policy does not list must not receive the mail; it is not even contacted.
    allowed = hosts.filter((h) => stsTarget(sts, h).listed);
    if (allowed.length === 0) {
      const text = `MTA-STS policy of ${domain} (enforce) lists none of its MX hosts (${hosts.join(', ')}); not delivered`;
      throw new RoutingError(text, localReply(451, '4.7.5', text), false, refusedRecord({ mode: 'enforce', listed: false, fetchError: null }, 'validation-failure'));
    }
  }
  const targets: SmtpTarget[] = [];
  for (const host of allowed) {
    const hostSts = stsTarget(sts, host);
    const enforce = sts.mode === 'enforce';
    for (const ip of await addresses(ctx, host)) {
      targets.push({ host: ip, port, secure: false, serverName: host, verifyTls: enforce, requireTls: enforce, relay: false, sts: hostSts });
    }
  }
  if (targets.length === 0) {
    throw new RoutingError(`no address for the mail hosts of ${domain}`, localReply(451, '4.4.4', `No address found for the mail hosts of ${domain}`), false);
  }
  return targets;
}

/** The MX host names in the order they are tried; throws RoutingError when DNS settles or delays it. */
async function mxHosts(ctx: AppContext, domain: string): Promise<string[]> {
  let hosts: string[];
  try {
    const mx = await ctx.dns.resolveMx(domain);
    // Null MX (RFC 7505): the domain accepts no mail at all.
    if (mx.length === 1 && (mx[0].exchange === '' || mx[0].exchange === '.')) {
      throw new RoutingError(`${domain} publishes a null MX`, localReply(556, '5.1.10', 'Recipient address has null MX'), true);
    }
    hosts = byPreference(mx.filter((r) => r.exchange !== '' && r.exchange !== '.')).map((r) => r.exchange.replace(/\.$/, ''));
    if (hosts.length === 0) hosts = [domain];
  } catch (err) {
    if (err instanceof RoutingError) throw err;
    const code = (err as { code?: string }).code ?? '';
    if (NO_DOMAIN.has(code)) throw new RoutingError(`${domain} does not exist`, localReply(550, '5.1.2', `Host or domain name not found: ${domain}`), true);
    // No MX records: the domain itself is the implicit MX (RFC 5321 5.1).
    if (NO_RECORDS.has(code)) hosts = [domain];
    else throw new RoutingError(`MX lookup for ${domain} failed: ${code || String(err)}`, localReply(451, '4.4.3', `DNS lookup of ${domain} failed (${code})`), false);
  }
  return hosts;
}
