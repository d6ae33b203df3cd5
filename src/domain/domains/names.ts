// Domain names as users type them: trimmed, lowercased, IDN converted to A-labels (RFC 5891), and checked
// against the host name syntax of RFC 1123 2.1 (labels of letters, digits and hyphens, 63 octets each).
import { domainToASCII } from 'node:url';

export const MAX_DOMAIN_LENGTH = 255;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The A-label form of a domain name with at least two labels, or null when it is not one. */
export function normalizeDomainName(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '').toLowerCase();
  if (!trimmed || /[\s@/\\:]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  // The top-level label is never all digits (RFC 3696 2): rules out IP addresses.
  if (/^\d+$/.test(labels[labels.length - 1])) return null;
  return ascii;
}

/** True when `host` is a proper subdomain of `domain` (both normalized). */
export function isSubdomainOf(host: string, domain: string): boolean {
  return host.length > domain.length + 1 && host.endsWith(`.${domain}`);
}

// Mailbox providers whose domains no customer can publish DNS records for: a signature or domain there
// could never be authenticated and would only let one customer impersonate another provider's users.
const PUBLIC_DOMAINS = new Set([
  'gmail.com', 'googlemail.com', 'yahoo.com', 'ymail.com', 'hotmail.com', 'outlook.com', 'live.com', 'msn.com',
  'aol.com', 'icloud.com', 'me.com', 'mac.com', 'mail.com', 'gmx.com', 'gmx.net', 'gmx.de', 'web.de',
  'protonmail.com', 'proton.me', 'yandex.ru', 'yandex.com', 'ya.ru', 'mail.ru', 'inbox.ru', 'list.ru', 'bk.ru',
  'rambler.ru', 'zoho.com', 'qq.com', '163.com', 'fastmail.com', 'hey.com',
]);

export function isPublicDomain(domain: string): boolean {
  return PUBLIC_DOMAINS.has(domain);
}
