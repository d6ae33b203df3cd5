// Each test service gets its own database: a fresh SQLite file, or a fresh schema in the PostgreSQL test
// database. Which one is chosen by MAILROOM_TEST_DB (sqlite | postgres), set by scripts/test.mjs.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DbOptions } from '../../src/infra/db/database.js';

export const TEST_DIALECT: 'sqlite' | 'postgres' = process.env.MAILROOM_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_PG_URL = process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  options: DbOptions;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DIALECT === 'postgres') {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    return {
      url: TEST_PG_URL,
      options: { schema, poolSize: 5 },
      async drop() {
        const c = new pg.Client({ connectionString: TEST_PG_URL });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  return {
    url: join(dir, 'mailroom.db'),
    options: {},
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
