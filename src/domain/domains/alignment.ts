// What an unverified Return-Path costs a domain, shown where operators look (the console's domain card and
// `mailroom status`). Without a verified custom Return-Path (a subdomain of the domain, return-path.ts) the
// envelope sender is the service's bounce domain: it differs from the From domain, which filters score
// (SpamAssassin's HEADER_FROM_DIFFERENT_DOMAINS), no signature can be "from the envelope-From domain"
// (DKIM_VALID_EF: with a verified one, delivery adds an i= signature for it, dkim/sign.ts), and DMARC's SPF
// alignment fails, so DMARC rests on DKIM alone.
import type { AppContext } from '../app-context.js';

export function unalignedCost(serviceDomain: string): string {
  return `mail goes out with the envelope domain ${serviceDomain}, not aligned with From: SpamAssassin adds HEADER_FROM_DIFFERENT_DOMAINS and cannot give DKIM_VALID_EF, and DMARC's SPF alignment fails (DKIM alone carries DMARC). Verify a Return-Path subdomain to align it.`;
}

/** Domains (of every account) whose mail leaves without a verified Return-Path: up to `limit` names and the count. */
export async function unalignedDomains(ctx: Pick<AppContext, 'db'>, limit = 20): Promise<{ total: number; names: string[] }> {
  const q = ctx.db.selectFrom('domains').where('return_path_verified', '=', 0);
  const [rows, count] = await Promise.all([
    q.select('name').orderBy('name').limit(limit).execute(),
    q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst(),
  ]);
  return { total: Number(count?.n ?? 0), names: rows.map((r) => r.name) };
}
