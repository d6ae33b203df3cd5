// Test shortcuts for authorizing a From address without going through the confirmation flow.
import { generateKeyPairSync } from 'node:crypto';
import type { TestService } from './service.js';

async function ensureDomain(s: TestService, name: string): Promise<number> {
  const existing = await s.ctx.db.selectFrom('domains').select('id').where('account_id', '=', s.accountId).where('name', '=', name).executeTakeFirst();
  if (existing) return existing.id;
  const row = await s.ctx.db
    .insertInto('domains')
    .values({ account_id: s.accountId, name, created_at: s.clock.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A confirmed sender signature for `email` (lowercase), as if its owner had followed the link. */
export async function addConfirmedSender(s: TestService, email: string, o: { confirmed?: boolean; name?: string } = {}): Promise<number> {
  const domainId = await ensureDomain(s, email.split('@')[1]);
  const row = await s.ctx.db
    .insertInto('sender_signatures')
    .values({
      account_id: s.accountId,
      domain_id: domainId,
      email,
      name: o.name ?? 'Test Sender',
      confirmed: o.confirmed === false ? 0 : 1,
      confirmed_at: o.confirmed === false ? null : s.clock.now(),
      created_at: s.clock.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface InstalledKey {
  domainId: number;
  selector: string;
  privateKeyPem: string;
  /** The base64 `p=` value to publish at <selector>._domainkey.<domain>. */
  publicKeyBase64: string;
}

/** A domain with verified DKIM and an active signing key (as after verifyDkim succeeded). */
export async function addVerifiedDomain(s: TestService, name: string, selector = 'mr1'): Promise<InstalledKey> {
  const domainId = await ensureDomain(s, name);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicKeyBase64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  await s.ctx.db.updateTable('domains').set({ dkim_verified: 1, dkim_update_status: 'Verified' }).where('id', '=', domainId).execute();
  await s.ctx.db
    .insertInto('dkim_keys')
    .values({
      domain_id: domainId,
      selector,
      private_key: s.ctx.secrets.seal(privateKeyPem),
      public_key: publicKeyBase64,
      bits: 2048,
      state: 'active',
      created_at: s.clock.now(),
      activated_at: s.clock.now(),
    })
    .execute();
  return { domainId, selector, privateKeyPem, publicKeyBase64 };
}
