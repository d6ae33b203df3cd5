#!/usr/bin/env node
// Runs the whole test suite on SQLite, then on PostgreSQL, and ends with one summary line.
//   npm test                         both databases, every file under test/
//   npm test -- test/http            only files under that path (file or folder), both databases
//   MAILROOM_TEST_DB=sqlite npm test only one database
// PostgreSQL: MAILROOM_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test). When it cannot be
// reached the PostgreSQL half is skipped with a loud message, never silently; under CI=true that fails.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const targets = args.length ? args : ['test'];

function collect(p, out) {
  const st = statSync(p);
  if (st.isDirectory()) for (const e of readdirSync(p).sort()) collect(join(p, e), out);
  else if (/\.test\.ts$/.test(p)) out.push(p);
  return out;
}
const files = targets.flatMap((t) => collect(join(root, t), []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const pgUrl = process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
async function pgReachable() {
  const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    await c.end();
    return true;
  } catch (err) {
    console.error(`PostgreSQL at ${pgUrl} is not reachable: ${err.message}`);
    return false;
  }
}

const wanted = process.env.MAILROOM_TEST_DB ? [process.env.MAILROOM_TEST_DB] : ['sqlite', 'postgres'];
const totals = { pass: 0, fail: 0, skipped: 0 };
let exitCode = 0;
for (const dialect of wanted) {
  if (dialect === 'postgres' && !(await pgReachable())) {
    console.error('\n############################################################');
    console.error('##  SKIPPING the PostgreSQL half of the test suite.        ##');
    console.error('############################################################\n');
    if (process.env.CI) exitCode = 1;
    continue;
  }
  console.log(`\n=== test suite on ${dialect} (${files.length} files) ===\n`);
  const tap = join(tmpdir(), `mailroom-tap-${process.pid}-${dialect}.txt`);
  const r = spawnSync(
    process.execPath,
    [
      '--import', 'tsx',
      '--test',
      `--test-concurrency=${process.env.MAILROOM_TEST_CONCURRENCY ?? 4}`,
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      ...files,
    ],
    { stdio: 'inherit', cwd: root, env: { ...process.env, MAILROOM_TEST_DB: dialect } },
  );
  let text = '';
  try {
    text = readFileSync(tap, 'utf8');
    rmSync(tap);
  } catch {
    /* runner died before writing */
  }
  const num = (k) => Number((new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text) ?? [])[1] ?? 0);
  totals.pass += num('pass');
  totals.fail += num('fail') + num('cancelled');
  totals.skipped += num('skipped') + num('todo');
  if (r.status !== 0) exitCode = 1;
  if (!text) {
    totals.fail += 1;
    exitCode = 1;
  }
}
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(exitCode);
