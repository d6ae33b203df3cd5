// Schema changes for sender signatures, domains and DKIM: confirmation link state, DNS re-check
// bookkeeping, and when a revoked DKIM key stopped being needed by queued mail.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  // A random nonce bound into the signed confirmation link, so a link only ever confirms the signature it
  // was made for (ids of deleted signatures are never reused, but the nonce makes that not matter).
  await db.schema.alterTable('sender_signatures').addColumn('confirm_nonce', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('sender_signatures').addColumn('confirmation_sent_at', 'bigint').execute();
  await db.schema.alterTable('sender_signatures').addColumn('return_path_checked_at', 'bigint').execute();
  await db.schema.createIndex('sender_signatures_domain').on('sender_signatures').columns(['domain_id']).execute();
  await db.schema
    .createIndex('sender_signatures_rp_check')
    .on('sender_signatures')
    .columns(['return_path_verified', 'return_path_checked_at'])
    .execute();

  await db.schema.alterTable('domains').addColumn('return_path_checked_at', 'bigint').execute();
  await db.schema.createIndex('domains_rp_check').on('domains').columns(['return_path_verified', 'return_path_checked_at']).execute();

  // Pending keys are re-checked in DNS periodically, least recently checked first.
  await db.schema.alterTable('dkim_keys').addColumn('checked_at', 'bigint').execute();
  // Set once no queued delivery of the domain's mail accepted before the revocation remains.
  await db.schema.alterTable('dkim_keys').addColumn('removable_at', 'bigint').execute();
  // At most one renewal in flight per domain, enforced by the database so two concurrent requests cannot
  // both start one (the loser answers 505).
  await db.schema
    .createIndex('dkim_keys_one_pending')
    .unique()
    .on('dkim_keys')
    .column('domain_id')
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema.createIndex('dkim_keys_state_checked').on('dkim_keys').columns(['state', 'checked_at']).execute();
}
