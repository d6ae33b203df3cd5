// What the application answered to each POST of an inbound message (issue 26, the console's inbound message
// page): the first bytes of the response body, whatever the status. Before this only a failed attempt kept
// its answer, folded into `error`; a 200 whose body says "ignored" was invisible to the operator.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('inbound_attempts').addColumn('response_excerpt', 'text').execute();
}
