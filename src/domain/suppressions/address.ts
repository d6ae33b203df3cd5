import { AddressError, parseSingleMailbox } from '../../infra/mime/address.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';

/**
 * The stored form of an address given to the suppression API, or null when it is not one plain address
 * (RFC 5321 mailbox; no display name, no list). Stored normalized, so that lookups ignore case.
 */
export function suppressionAddress(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 320) return null;
  try {
    const box = parseSingleMailbox(value);
    if (box.name !== '' || value.includes('<')) return null;
    return normalizeEmail(box.ascii);
  } catch (err) {
    if (err instanceof AddressError) return null;
    throw err;
  }
}
