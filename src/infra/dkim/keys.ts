// DKIM key material (RFC 6376): an RSA key pair per domain, the private half sealed at rest with the
// master key (MAILROOM_SECRET_KEY), the public half published as `<selector>._domainkey.<domain>`.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { Secrets } from '../crypto/secrets.js';
import type { Database } from '../db/schema.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** RFC 8301 3.2: signers MUST use RSA keys of at least 1024 bits and SHOULD use 2048. */
export const DKIM_KEY_BITS = 2048;
/** Keys under this size are reported as WeakDKIM (RFC 8301 3.2: verifiers must not accept < 1024). */
export const WEAK_DKIM_BITS = 1024;

export interface NewKey {
  selector: string;
  privateKeyPem: string;
  /** Base64 SubjectPublicKeyInfo DER: the `p=` tag value (RFC 6376 3.6.1). */
  publicKey: string;
  bits: number;
}

/**
 * A selector unique to this key: the creation time plus randomness, so that two keys made in the same
 * second (or by two processes) never share a DNS name. Selectors are dot-atoms (RFC 6376 3.1); this one is
 * a single lowercase label.
 */
export function newSelector(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `mr${stamp}${randomBytes(2).toString('hex')}`;
}

/** Generates a key pair off the event loop (2048-bit RSA takes tens to hundreds of milliseconds). */
export async function generateDkimKey(now: number, bits = DKIM_KEY_BITS): Promise<NewKey> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', { modulusLength: bits });
  return {
    selector: newSelector(now),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    bits,
  };
}

export const dkimHost = (selector: string, domain: string): string => `${selector}._domainkey.${domain}`;
// v=DKIM1 first: optional (RFC 6376 3.6.1) but the first tag when present, and some checkers look for it.
export const dkimTextValue = (publicKey: string): string => `v=DKIM1; k=rsa; p=${publicKey}`;

/** Stores a new pending key for a domain inside the caller's transaction. */
export async function insertPendingKey(trx: Kysely<Database>, ctx: { secrets: Secrets }, domainId: number, key: NewKey, now: number): Promise<void> {
  await trx
    .insertInto('dkim_keys')
    .values({
      domain_id: domainId,
      selector: key.selector,
      private_key: ctx.secrets.seal(key.privateKeyPem),
      public_key: key.publicKey,
      bits: key.bits,
      state: 'pending',
      created_at: now,
      activated_at: null,
      revoked_at: null,
    })
    .execute();
}
