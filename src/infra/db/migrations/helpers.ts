// Helpers for migrations only. Migrations are frozen in time: they import nothing from the application, so
// that a later change to app code can never change what an old migration does.
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';

export type MigrationDialect = 'sqlite' | 'postgres';

export interface Migration {
  up(db: Kysely<any>, dialect: MigrationDialect): Promise<void>;
}

/** An auto-increment integer primary key on either dialect. */
export function withId<T extends string>(
  table: CreateTableBuilder<T, any>,
  dialect: MigrationDialect,
  type: 'integer' | 'bigint' = 'integer',
): CreateTableBuilder<T, any> {
  return dialect === 'postgres'
    ? table.addColumn('id', type, (c: ColumnDefinitionBuilder) => c.generatedByDefaultAsIdentity().primaryKey())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}
