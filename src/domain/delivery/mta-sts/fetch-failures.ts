// MTA-STS policy fetches that failed lately (RFC 8461 3.3), per process.

/**
 * Domains whose policy fetch failed lately, with when to try again: a policy host that hangs would otherwise
 * hold every delivery to the domain for the fetch timeout. One per process (held by the SMTP pool, which
 * delivery and system mail share); the database cache (cache.ts) keeps the policies themselves.
 */
export class StsFetchFailures {
  private readonly until = new Map<string, number>();
  constructor(
    readonly retryMs = 5 * 60_000,
    private readonly max = 10_000,
  ) {}

  blocked(domain: string, now: number): boolean {
    const t = this.until.get(domain);
    if (t === undefined) return false;
    if (t > now) return true;
    this.until.delete(domain);
    return false;
  }

  failed(domain: string, now: number): void {
    if (this.until.size >= this.max) this.until.delete(this.until.keys().next().value as string);
    this.until.set(domain, now + this.retryMs);
  }
}
