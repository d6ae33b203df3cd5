// Schema changes for delivery: none (delivery's tables come in later migrations); kept so the numbering
// of the migrations already applied stays as it is.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(_db: Kysely<any>, _d: MigrationDialect): Promise<void> {}
