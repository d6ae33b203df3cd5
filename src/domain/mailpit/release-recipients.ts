// Who a release may go to (MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS): Mailpit takes a regular expression
// here; a list of addresses, domains and `*.domain` entries is matched by comparison alone, so a recipient
// typed into the API or the console costs time linear in its length, whatever the operator wrote.
import { parseSingleMailbox } from '../../infra/mime/address.js';

/** The address of `to` (a bare address or `Name <address>`), lower-cased; null when it is none. */
export function recipientAddress(to: string): string | null {
  if (to.length > 998) return null;
  try {
    const a = parseSingleMailbox(to).address.trim().toLowerCase();
    const at = a.lastIndexOf('@');
    // RFC 5321 4.5.3.1: a local part and a domain; no space or angle bracket reaches the RCPT command.
    return at > 0 && at < a.length - 1 && !/[\s<>]/.test(a) ? a : null;
  } catch {
    return null;
  }
}

/** Whether `address` (lower-case) matches the allowed list; an empty list allows every address. */
export function recipientAllowed(allowed: readonly string[], address: string): boolean {
  if (allowed.length === 0) return true;
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return allowed.some((e) => {
    if (e.includes('@')) return e === address;
    if (e.startsWith('*.')) return domain.endsWith(e.slice(1));
    return e === domain;
  });
}
