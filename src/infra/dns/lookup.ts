// DNS lookups used by verification, with the outcome told apart the way RFC 7208 2.6 does: an answer, no
// record (NXDOMAIN or NODATA: a definite "not there"), or a temporary failure (timeout, SERVFAIL), which
// must never be mistaken for "not there".
import type { Resolver } from 'node:dns/promises';

export type Lookup<T> = { kind: 'found'; value: T } | { kind: 'none' } | { kind: 'error'; message: string };

const NOT_THERE = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

function outcome<T>(err: unknown): Lookup<T> {
  const code = (err as { code?: string }).code ?? '';
  if (NOT_THERE.has(code)) return { kind: 'none' };
  return { kind: 'error', message: `${code || 'DNS error'}: ${(err as Error).message}` };
}

/** TXT records at `name`, each record's character-strings joined (RFC 7208 3.3, RFC 6376 3.6.2.2). */
export async function lookupTxt(dns: Resolver, name: string): Promise<Lookup<string[]>> {
  try {
    const records = await dns.resolveTxt(name);
    if (records.length === 0) return { kind: 'none' };
    return { kind: 'found', value: records.map((chunks) => chunks.join('')) };
  } catch (err) {
    return outcome(err);
  }
}

/** The CNAME target at `name`, lowercased without the trailing dot. */
export async function lookupCname(dns: Resolver, name: string): Promise<Lookup<string>> {
  try {
    const targets = await dns.resolveCname(name);
    if (targets.length === 0) return { kind: 'none' };
    return { kind: 'found', value: targets[0].toLowerCase().replace(/\.$/, '') };
  } catch (err) {
    return outcome(err);
  }
}
