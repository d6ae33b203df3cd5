// A Sandbox server may take mail from any From address (the server setting SandboxAcceptsAnyFrom), as a test
// inbox in place of Mailpit does: nothing it takes is sent, so no sender signature protects anyone. Off for
// existing servers: what they refused yesterday they refuse today until someone turns it on.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('servers').addColumn('sandbox_any_from', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
