// Discovers and fetches a domain's MTA-STS policy (RFC 8461 3): the `_mta-sts` TXT record names the
// current policy id, and the policy itself is served over HTTPS by the host `mta-sts.<domain>`, whose
// certificate must verify. Name resolution goes through the delivery resolver (MAILROOM_DNS_SERVERS).
import type { Resolver } from 'node:dns/promises';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { parseStsPolicy, parseStsRecord, type StsPolicy } from './policy.js';

export interface StsFetchOptions {
  dns: Resolver;
  /** HTTPS port of the policy host: 443 (RFC 8461 3.3); tests point it at a loopback server. */
  port: number;
  /** Extra trusted CA certificates (PEM), besides the system's: a private PKI, or a test CA. */
  ca?: string | null;
  timeoutMs?: number;
}

/** RFC 8461 3.3: policy bodies are small; a sender may refuse a larger one. */
const MAX_BODY = 64 * 1024;

/** The `_mta-sts` TXT record's id; null when the domain publishes none; throws when DNS fails. */
export async function lookupStsId(dns: Resolver, domain: string): Promise<string | null> {
  let records: string[][];
  try {
    records = await dns.resolveTxt(`_mta-sts.${domain}`);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND' || code === 'NXDOMAIN') return null;
    throw err;
  }
  // RFC 8461 3.1: more than one STSv1 record means no valid record.
  const ids = records.map((chunks) => parseStsRecord(chunks.join(''))).filter((id): id is string => id !== null);
  return ids.length === 1 ? ids[0]! : null;
}

/** Fetches and parses the policy; throws on any failure (no redirects, 200 only, RFC 8461 3.3). */
export async function fetchStsPolicy(domain: string, o: StsFetchOptions): Promise<StsPolicy> {
  const host = `mta-sts.${domain}`;
  const [v4, v6] = await Promise.allSettled([o.dns.resolve4(host), o.dns.resolve6(host)]);
  const ip = (v4.status === 'fulfilled' ? v4.value[0] : undefined) ?? (v6.status === 'fulfilled' ? v6.value[0] : undefined);
  if (!ip) throw new Error(`${host} has no address`);
  const body = await new Promise<string>((resolve, reject) => {
    const req = request(
      {
        host: ip,
        port: o.port,
        path: '/.well-known/mta-sts.txt',
        method: 'GET',
        servername: host,
        headers: { host },
        // An extra CA adds to the system's roots instead of replacing them.
        ca: o.ca ? [...rootCertificates, o.ca] : undefined,
        timeout: o.timeoutMs ?? 10_000,
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`policy fetch answered HTTP ${res.statusCode}`));
        }
        const type = String(res.headers['content-type'] ?? '');
        if (!/^text\/plain\b/i.test(type)) {
          res.resume();
          return reject(new Error(`policy has media type ${JSON.stringify(type)}, not text/plain`));
        }
        let size = 0;
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (size > MAX_BODY) req.destroy(new Error('policy larger than 64 KB'));
          else parts.push(d);
        });
        res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('policy fetch timed out')));
    req.on('error', reject);
    req.end();
  });
  return parseStsPolicy(body);
}
