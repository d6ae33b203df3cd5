// Schema changes of issue 4 (delivery). Starts empty; the area adds its tables here.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(_db: Kysely<any>, _d: MigrationDialect): Promise<void> {}
