// Each test service gets its own database: a fresh SQLite file, or a fresh database on the PostgreSQL test
// server. Which one is chosen by MAILROOM_TEST_DB (sqlite | postgres), set by scripts/test.mjs.
//
// A migrated one is copied from a template migrated once per set of migrations, instead of running every
// migration for every service: a file copy on SQLite, CREATE DATABASE ... TEMPLATE on PostgreSQL (a schema
// cannot be copied in PostgreSQL; a database can, by its files). The template's name carries a hash of the
// migration sources, so a changed migration gets a new template, and runs of other checkouts on the same
// server keep theirs.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type DbOptions, openDatabase } from '../../src/infra/db/database.js';
import { migrateToLatest } from '../../src/infra/db/migrate.js';
import { giveBack, noteFresh, reusableName, sweepDead, takeSpare } from './pg-reuse.js';

export const TEST_DIALECT: 'sqlite' | 'postgres' = process.env.MAILROOM_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_PG_URL = process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  options: DbOptions;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Copied from the migrated template (default: empty, for the tests of migrating itself). */
  migrated?: boolean;
  /** PostgreSQL: a fresh copy, never a reused one. Emptying keeps what the planner read off the tables'
   * files and pg_class (their pages, the row counts an ANALYZE left), so a test of plans on a database that
   * was never analyzed needs one that never held rows. */
  pristine?: boolean;
}

const DB_SOURCE = new URL('../../src/infra/db/', import.meta.url);

/** A hash of everything that decides the migrated schema: the migrations and the code that runs them. */
function migrationsHash(): string {
  const h = createHash('sha256');
  const migrations = new URL('migrations/', DB_SOURCE);
  for (const name of readdirSync(migrations).sort()) h.update(name).update(readFileSync(new URL(name, migrations)));
  h.update(readFileSync(new URL('migrate.ts', DB_SOURCE)));
  return h.digest('hex').slice(0, 12);
}

function pgUrlOf(database: string): string {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

async function migrate(url: string): Promise<void> {
  const db = openDatabase(url, { poolSize: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.close();
  }
}

/** The PostgreSQL template's name, built under an advisory lock by the first process of a run that needs it. */
async function pgTemplate(admin: pg.Client): Promise<string> {
  const name = `mailroom_tpl_${migrationsHash()}`;
  const exists = async () => (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  if (await exists()) return name;
  await admin.query(`select pg_advisory_lock(hashtext('mailroom-test-template'))`);
  try {
    if (await exists()) return name;
    // Built under another name and renamed when complete, so that no one copies a half-migrated template.
    const building = `${name}_b${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS ${building}`);
    await admin.query(`CREATE DATABASE ${building}`);
    await migrate(pgUrlOf(building));
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    return name;
  } finally {
    await admin.query(`select pg_advisory_unlock(hashtext('mailroom-test-template'))`);
  }
}

/** The SQLite template file, built beside its final name and renamed into place (atomic on one file system). */
async function sqliteTemplate(): Promise<string> {
  const file = join(tmpdir(), `mailroom-test-template-${migrationsHash()}.db`);
  if (existsSync(file)) return file;
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-template-'));
  try {
    const building = join(dir, 'template.db');
    // Closing the only connection checkpoints the WAL into the file: the file alone is the database.
    await migrate(building);
    renameSync(building, file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return file;
}

export async function createTestDatabase(o: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (TEST_DIALECT === 'postgres') {
    // A migrated database is the process's spare one when it has one (pg-reuse.ts): emptied, not copied.
    const spare = o.migrated && !o.pristine ? takeSpare() : undefined;
    const database = spare ?? (o.migrated ? reusableName(randomBytes(6).toString('hex')) : `t_${randomBytes(6).toString('hex')}`);
    if (!spare) {
      const admin = new pg.Client({ connectionString: TEST_PG_URL });
      await admin.connect();
      try {
        await sweepDead(admin);
        const template = o.migrated ? await pgTemplate(admin) : null;
        // WAL_LOG (the default) copies block by block through the WAL: no checkpoint of the whole server, as
        // FILE_COPY does, which took 2-3 s a copy here against 0.2-0.5 s.
        await admin.query(template ? `CREATE DATABASE ${database} TEMPLATE ${template} STRATEGY wal_log` : `CREATE DATABASE ${database}`);
      } finally {
        await admin.end();
      }
      if (o.migrated) await noteFresh(pgUrlOf(database));
    }
    let dropped = false;
    return {
      url: pgUrlOf(database),
      // Its own database, so the default schema; named, for the tests that put it in a URL's search_path.
      options: { schema: 'public', poolSize: 5 },
      async drop() {
        // Once: a database given back twice would be handed to two services.
        if (dropped) return;
        dropped = true;
        if (o.migrated && (await giveBack(pgUrlOf(database), database, TEST_PG_URL))) return;
        const c = new pg.Client({ connectionString: TEST_PG_URL });
        await c.connect();
        // FORCE: a child process killed by the test may leave a connection the server has not yet closed.
        await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  const url = join(dir, 'mailroom.db');
  if (o.migrated) copyFileSync(await sqliteTemplate(), url);
  return {
    url,
    options: {},
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
