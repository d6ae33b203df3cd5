// Migrated PostgreSQL test databases, emptied and handed to the next service of the same test process instead
// of being dropped and copied again. A copy from the template (CREATE DATABASE ... TEMPLATE) costs the server
// about half a second of CPU, most of it the system catalogs every database carries; emptying a used one costs
// a few milliseconds: its rows deleted, the day partitions the test made dropped, its sequences restarted, its
// planner statistics forgotten.
//
// A database is taken back only when it is the template's again in everything but rows: the same relations,
// schemas, functions, triggers, constraints, settings and migrations (a fingerprint of the catalogs, compared
// with a fresh copy's). A test that changed anything else (dropped an index, added a schema) gets its database
// dropped as before. Spare databases are dropped when the process has nothing left to do, and a later process
// drops those of a process that died first (their names carry its pid).
import pg from 'pg';

const FINGERPRINT = `select md5(
  coalesce((select string_agg(c.relname || ':' || c.relkind::text || ':' || c.relnatts::text || ':' || coalesce(array_to_string(c.reloptions, ','), ''), ',' order by c.relname)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'), '')
  || (select string_agg(nspname::text, ',' order by nspname) from pg_namespace where nspname not like 'pg\\_temp%' and nspname not like 'pg\\_toast\\_temp%')
  || (select count(*) from pg_proc)::text || ':' || (select count(*) from pg_trigger)::text || ':' || (select count(*) from pg_constraint)::text
  || ':' || (select count(*) from pg_db_role_setting where setdatabase = (select oid from pg_database where datname = current_database()))::text
  || ':' || (select string_agg(name, ',' order by name) from mailroom_migration)) as fp`;

/** Partitions made after the template (day partitions): every partition but the `_default` ones it has. */
const MADE_PARTITIONS = `select c.oid::regclass::text as name from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relispartition and c.relkind in ('r', 'p') and c.relname not like '%\\_default'`;

const spares: string[] = [];
let baseline: string | null = null;
let exitHook = false;

export const reusableName = (suffix: string) => `t_${process.pid}_${suffix}`;

/** The fingerprint of a fresh copy (at `url`), taken once per process from the first database it makes. */
export async function noteFresh(url: string): Promise<void> {
  if (baseline !== null) return;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    baseline = (await c.query(FINGERPRINT)).rows[0].fp;
  } finally {
    await c.end();
  }
}

/** A spare emptied database of this process, if there is one. */
export const takeSpare = (): string | undefined => spares.pop();

/**
 * Empties `database` (at `url`) for the next service of this process; false when it cannot be (it differs
 * from the template in more than rows, or emptying failed): the caller drops it. `adminUrl`: where the spare
 * databases are dropped from when the process ends.
 */
export async function giveBack(url: string, database: string, adminUrl: string): Promise<boolean> {
  if (baseline === null) return false;
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
  } catch {
    return false;
  }
  try {
    // A child process the test killed, or a pool it did not close, may still hold a connection.
    await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    const made = (await c.query(MADE_PARTITIONS)).rows.map((r) => r.name as string);
    if (made.length) await c.query(made.map((p) => `drop table if exists ${p}`).join('; '));
    if ((await c.query(FINGERPRINT)).rows[0].fp !== baseline) return false;
    const tables = (
      await c.query(`select c.relname from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and c.relname <> 'mailroom_migration'`)
    ).rows.map((r) => r.relname as string);
    const probe = tables.map((t) => `select ${pg.escapeLiteral(t)} as t where exists (select 1 from ${pg.escapeIdentifier(t)})`).join(' union all ');
    const used = (await c.query(probe)).rows.map((r) => r.t as string);
    // Replica mode fires no triggers and checks no foreign keys: the rows go in any order, and the kept counts
    // (triggers' tables) are emptied like the rest.
    if (used.length) {
      await c.query(`begin; set local session_replication_role = replica; ${used.map((t) => `delete from ${pg.escapeIdentifier(t)}`).join('; ')}; commit`);
    }
    const seqs = (await c.query(`select schemaname, sequencename from pg_sequences where last_value is not null`)).rows;
    if (seqs.length) await c.query(seqs.map((s) => `alter sequence ${pg.escapeIdentifier(s.schemaname)}.${pg.escapeIdentifier(s.sequencename)} restart`).join('; '));
    await c.query(`delete from pg_statistic where starelid in (select oid from pg_class where relnamespace = 'public'::regnamespace); select pg_stat_reset()`);
    spares.push(database);
    dropSparesAtExit(adminUrl);
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** When the process has nothing left to do, its spare databases are dropped (the drop keeps it alive). */
function dropSparesAtExit(adminUrl: string): void {
  if (exitHook) return;
  exitHook = true;
  process.on('beforeExit', () => {
    if (!spares.length) return;
    const names = spares.splice(0);
    void dropAll(adminUrl, names);
  });
}

async function dropAll(adminUrl: string, names: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  try {
    await c.connect();
    for (const n of names) await c.query(`drop database if exists ${pg.escapeIdentifier(n)} with (force)`);
  } catch {
    /* the server went away: nothing to drop */
  } finally {
    await c.end().catch(() => undefined);
  }
}

let swept = false;

/** Drops, once per process, the spare databases of test processes that ended without dropping theirs. */
export async function sweepDead(admin: pg.Client): Promise<void> {
  if (swept) return;
  swept = true;
  const rows = (await admin.query(`select datname from pg_database where datname ~ '^t_[0-9]+_'`)).rows as { datname: string }[];
  for (const { datname } of rows) {
    const pid = Number(datname.split('_')[1]);
    if (pid === process.pid || alive(pid)) continue;
    await admin.query(`drop database if exists ${pg.escapeIdentifier(datname)} with (force)`).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
