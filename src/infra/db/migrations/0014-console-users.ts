// The web console: people who sign in to the web console, their server-side sessions, and failed sign-ins (counted
// in the database so that the limit holds across every API process sharing it).
import type { Kysely } from 'kysely';
import { type MigrationDialect, withId } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await withId(db.schema.createTable('console_users'), d)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Stored lowercased; unique across the installation so that sign-in needs only the address.
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    // scrypt$N$r$p$salt$hash (base64url), see src/domain/console-users/passwords.ts.
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('console_sessions')
    // SHA-256 of the cookie value: a copy of the table does not let anyone sign in.
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('console_users.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_user').on('console_sessions').column('user_id').execute();

  await withId(db.schema.createTable('console_login_failures'), d)
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_login_failures_email').on('console_login_failures').columns(['email', 'occurred_at']).execute();
}
