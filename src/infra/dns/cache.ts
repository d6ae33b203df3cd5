// A small answer cache in front of the resolver for inbound mail authentication. Node's resolver keeps no
// cache, and every received message asks for the sender's SPF, DMARC and DKIM records: a burst of mail
// from one domain would ask the same questions hundreds of times a second. Answers and definite "no such
// record" outcomes (NXDOMAIN/NODATA, RFC 2308 negative caching) are kept for `ttlMs`; temporary failures
// are never cached. Concurrent questions for the same name share one lookup. The TTL is short (default
// 60 s, below typical record TTLs) because Node's resolver does not expose the records' own TTLs.
import type { Resolver } from 'node:dns/promises';
import type { Clock } from '../clock.js';

const NOT_THERE = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

export type ResolveFn = (name: string, rrtype: string) => Promise<unknown>;

interface Entry {
  until: number;
  value?: unknown;
  error?: unknown;
  pending?: Promise<unknown>;
}

export function cachedResolve(dns: Resolver, clock: Clock, ttlMs = 60_000, maxEntries = 10_000): ResolveFn {
  const cache = new Map<string, Entry>();
  return (name, rrtype) => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const now = clock.now();
    const hit = cache.get(key);
    if (hit && (hit.pending || hit.until > now)) {
      if (hit.pending) return hit.pending;
      return hit.error ? Promise.reject(hit.error) : Promise.resolve(hit.value);
    }
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    const entry: Entry = { until: 0 };
    entry.pending = dns.resolve(name, rrtype).then(
      (value) => {
        Object.assign(entry, { value, until: clock.now() + ttlMs, pending: undefined });
        return value;
      },
      (error: unknown) => {
        if (NOT_THERE.has((error as { code?: string }).code ?? '')) Object.assign(entry, { error, until: clock.now() + ttlMs, pending: undefined });
        else cache.delete(key);
        throw error;
      },
    );
    cache.set(key, entry);
    return entry.pending;
  };
}
