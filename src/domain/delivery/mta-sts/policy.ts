// MTA-STS policies (RFC 8461): the text a domain publishes at https://mta-sts.<domain>/.well-known/mta-sts.txt
// saying which MX hosts may receive its mail and whether senders must refuse the others. Pure.

export type StsMode = 'enforce' | 'testing' | 'none';

export interface StsPolicy {
  mode: StsMode;
  /** MX patterns: a host name, or "*." and a name that stands for exactly one more label (RFC 8461 4.1). */
  mx: string[];
  /** Seconds the policy may be cached (RFC 8461 3.2: at most 31557600, one year). */
  maxAge: number;
}

const MAX_AGE_LIMIT = 31_557_600;

export class StsPolicyError extends Error {}

/**
 * Parses a policy body (RFC 8461 3.2: "key: value" lines, CRLF or LF). version must be STSv1; mode, max_age
 * and (unless mode is none) at least one mx are required; unknown keys are ignored for extensibility.
 */
/** Without leading and trailing spaces and tabs (the only blanks RFC 8461 3.2 allows around a value). */
function trimBlanks(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && (s[start] === ' ' || s[start] === '\t')) start++;
  while (end > start && (s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
  return s.slice(start, end);
}

export function parseStsPolicy(body: string): StsPolicy {
  const fields = new Map<string, string[]>();
  for (const line of body.split(/\r?\n/)) {
    // Split at the colon and trimmed, not /^(\w+):[ \t]*(.*?)[ \t]*$/: that pattern tries every split of a run of
    // blanks (cubic in the line), and the body is a remote site's.
    const colon = line.indexOf(':');
    const key = line.slice(0, Math.max(colon, 0));
    const value = line.slice(colon + 1);
    if (!/^[A-Za-z0-9_]+$/.test(key) || /[\r\u2028\u2029]/.test(value)) continue;
    const k = key.toLowerCase();
    const values = fields.get(k) ?? [];
    values.push(trimBlanks(value));
    fields.set(k, values);
  }
  if (fields.get('version')?.[0] !== 'STSv1') throw new StsPolicyError('policy version is not STSv1');
  const mode = fields.get('mode')?.[0];
  if (mode !== 'enforce' && mode !== 'testing' && mode !== 'none') throw new StsPolicyError(`policy mode "${mode ?? ''}" is not enforce, testing or none`);
  const maxAgeText = fields.get('max_age')?.[0] ?? '';
  if (!/^\d{1,10}$/.test(maxAgeText)) throw new StsPolicyError('policy max_age is missing or not a number');
  const maxAge = Math.min(Number(maxAgeText), MAX_AGE_LIMIT);
  const mx = (fields.get('mx') ?? []).map((p) => p.toLowerCase().replace(/\.$/, '')).filter(Boolean);
  if (mode !== 'none' && mx.length === 0) throw new StsPolicyError('policy names no mx');
  return { mode, mx, maxAge };
}

/** Whether an MX host name matches one of the policy's patterns (RFC 8461 4.1: "*." matches one label). */
export function mxMatches(policy: StsPolicy, host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return policy.mx.some((p) => {
    if (!p.startsWith('*.')) return p === h;
    const rest = p.slice(1); // ".example.com"
    if (!h.endsWith(rest)) return false;
    const label = h.slice(0, -rest.length);
    return label.length > 0 && !label.includes('.');
  });
}

/** The policy id of a `_mta-sts.<domain>` TXT record (RFC 8461 3.1), or null when it is not one. */
export function parseStsRecord(txt: string): string | null {
  const fields = txt.split(';').map((f) => f.trim()).filter(Boolean);
  if (fields[0] !== 'v=STSv1') return null;
  const id = fields.find((f) => f.startsWith('id='))?.slice(3);
  return id && /^[A-Za-z0-9]{1,32}$/.test(id) ? id : null;
}
