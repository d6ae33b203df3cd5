// The password of a server's InboundHookUrl (`https://user:pass@host/`) was stored in the URL, in plain text,
// and shown by GET /server. It now lives apart, sealed like webhook passwords (AES-256-GCM under the master
// secret); the URL column keeps the address and user name only. A migration imports nothing from the app,
// so it cannot seal: the rows written before this column are sealed at start-up by
// domain/servers/inbound-hook-secret.ts (sealInboundHookPasswords), which moves each password out of the URL.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('servers').addColumn('inbound_hook_password', 'text', (c) => c.notNull().defaultTo('')).execute();
}
