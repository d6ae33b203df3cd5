// The client a per-address limit of the SMTP listeners counts (client-slots.ts, auth-guard.ts).
import { isIPv4, isIPv6 } from 'node:net';

/** The address a limit counts: IPv4 as is, IPv6 by its /64 (RFC 4291 2.5.4: the interface identifier is
 * chosen by the host, so one machine can take any number of addresses of its /64). */
export function clientKey(address: string | undefined): string {
  const a = (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');
  if (isIPv4(a) || !isIPv6(a)) return a || 'unknown';
  const [head, tail = ''] = a.split('::');
  const part = (s: string) => (s ? s.split(':') : []);
  const h = part(head);
  const t = part(tail);
  // An embedded IPv4 tail takes two groups; it is in the interface identifier either way.
  const tLen = t.length + (t.length && t[t.length - 1].includes('.') ? 1 : 0);
  const groups = a.includes('::') ? [...h, ...Array<string>(Math.max(0, 8 - h.length - tLen)).fill('0'), ...t] : h;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
