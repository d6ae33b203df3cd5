import { domainToASCII } from 'node:url';

/**
 * The stored, compared form of an address: trimmed, the domain as a lowercase A-label (IDN, RFC 5891) and
 * the local part lowercased. Strictly the local part is case-sensitive (RFC 5321 2.4), but no mailbox
 * provider treats it so, and users expect suppressions and signatures to match regardless of case.
 * Returns null when there is no usable domain.
 */
export function normalizeEmail(address: string): string | null {
  const a = address.trim();
  const at = a.lastIndexOf('@');
  if (at <= 0 || at === a.length - 1) return null;
  const domain = domainToASCII(a.slice(at + 1).toLowerCase());
  if (!domain) return null;
  return `${a.slice(0, at).toLowerCase()}@${domain}`;
}

/** The domain part of a normalized address. */
export function emailDomain(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
