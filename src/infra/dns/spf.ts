// Does a domain's SPF policy authorize mailroom? It does when evaluating the domain's record (RFC 7208)
// reaches `+include:<spfInclude>`, directly or through nested include: and redirect=, before anything that
// would end the evaluation (an `all`, or our include with a non-pass qualifier) and within the limit of
// 10 DNS-querying terms (RFC 7208 4.6.4), beyond which receivers return permerror and the mail fails SPF.
//
// We cannot know which of the other mechanisms (a, mx, ip4, ...) a receiver would match, and they do not
// match mailroom's own servers, so they are counted against the limit and passed over, which is what a
// receiver does for our connecting IP.
import type { Resolver } from 'node:dns/promises';
import type { CheckResult } from './cname.js';
import { lookupTxt } from './lookup.js';

/** RFC 7208 4.6.4: include, a, mx, ptr, exists and redirect together at most 10 per evaluation. */
export const SPF_LOOKUP_LIMIT = 10;

export interface SpfOutcome {
  result: CheckResult;
  /** DNS-querying terms counted up to the decision. */
  lookups: number;
  /** Why, for logs and the operator: which term decided, or what broke. */
  reason: string;
}

type Walk = { kind: 'reached' } | { kind: 'not'; reason: string } | { kind: 'perm' | 'temp'; reason: string };

const DNS_TERMS = new Set(['a', 'mx', 'ptr', 'exists']);
const KNOWN_MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);

const host = (s: string) => s.toLowerCase().replace(/\.$/, '');

/** The suggested record for a domain: the user's own hosts plus mailroom's include (RFC 7208 4.6 order). */
export function spfTextValue(spfInclude: string): string {
  return `v=spf1 a mx include:${spfInclude} ~all`;
}

export async function checkSpf(dns: Resolver, domain: string, spfInclude: string): Promise<SpfOutcome> {
  const state = { lookups: 0 };
  const want = host(spfInclude);

  const walk = async (name: string, nested: boolean): Promise<Walk> => {
    const txt = await lookupTxt(dns, name);
    if (txt.kind === 'error') return { kind: 'temp', reason: `DNS lookup of ${name} failed (${txt.message})` };
    const records = txt.kind === 'found' ? txt.value.filter((t) => /^v=spf1(\s|$)/i.test(t)) : [];
    // RFC 7208 4.5: no record is "none" (and "permerror" when reached through include or redirect, 5.2,
    // 6.1); more than one record is permerror.
    if (records.length === 0) return nested ? { kind: 'perm', reason: `${name} has no SPF record` } : { kind: 'not', reason: `${name} has no SPF record` };
    if (records.length > 1) return { kind: 'perm', reason: `${name} has ${records.length} SPF records (RFC 7208 4.5 allows one)` };

    const terms = records[0].split(/\s+/).slice(1).filter(Boolean);
    let redirect: string | null = null;
    for (const term of terms) {
      const mod = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
      if (mod) {
        if (mod[1].toLowerCase() === 'redirect') {
          if (redirect !== null) return { kind: 'perm', reason: `${name}: redirect= appears twice` };
          redirect = host(mod[2]);
        }
        continue;
      }
      const qualified = /^[+\-~?]/.test(term);
      const q = qualified ? term[0] : '+';
      const body = qualified ? term.slice(1) : term;
      const mech = /^[a-z0-9]+/i.exec(body)?.[0].toLowerCase() ?? '';
      if (!KNOWN_MECHANISMS.has(mech)) return { kind: 'perm', reason: `${name}: unknown term '${term}'` };
      if (mech === 'all') return { kind: 'not', reason: `${name}: '${term}' ends the evaluation before include:${want}` };
      if (mech === 'include') {
        if (++state.lookups > SPF_LOOKUP_LIMIT) return { kind: 'perm', reason: `more than ${SPF_LOOKUP_LIMIT} DNS-querying terms (RFC 7208 4.6.4)` };
        const target = body[7] === ':' ? host(body.slice(8)) : '';
        if (!target) return { kind: 'perm', reason: `${name}: malformed '${term}'` };
        // Our include matches mailroom's servers: the record's result is this term's qualifier.
        if (target === want) return q === '+' ? { kind: 'reached' } : { kind: 'not', reason: `${name}: '${term}' does not pass` };
        if (target.includes('%')) continue; // macro-expanded names depend on the message; cannot be ours
        const inner = await walk(target, true);
        if (inner.kind === 'reached') return q === '+' ? inner : { kind: 'not', reason: `${name}: '${term}' does not pass` };
        if (inner.kind !== 'not') return inner;
        continue;
      }
      if (DNS_TERMS.has(mech) && ++state.lookups > SPF_LOOKUP_LIMIT) {
        return { kind: 'perm', reason: `more than ${SPF_LOOKUP_LIMIT} DNS-querying terms (RFC 7208 4.6.4)` };
      }
    }
    // RFC 7208 6.1: redirect applies only when no mechanism matched (an `all` would have returned above).
    if (redirect !== null) {
      if (++state.lookups > SPF_LOOKUP_LIMIT) return { kind: 'perm', reason: `more than ${SPF_LOOKUP_LIMIT} DNS-querying terms (RFC 7208 4.6.4)` };
      if (redirect === want) return { kind: 'reached' };
      return walk(redirect, true);
    }
    return { kind: 'not', reason: `${name}: include:${want} not found` };
  };

  const r = await walk(host(domain), false);
  if (r.kind === 'reached') return { result: 'pass', lookups: state.lookups, reason: `include:${want} reached` };
  if (r.kind === 'temp') return { result: 'error', lookups: state.lookups, reason: r.reason };
  return { result: 'fail', lookups: state.lookups, reason: r.kind === 'perm' ? `permerror: ${r.reason}` : r.reason };
}
