#!/usr/bin/env node
// Runs the test suite in five tiers and ends with one summary line.
//
// A file's tier is named on its first line; a file without the marker is an integration test:
//   // tier: unit   database-free (no service, no test database): runs once
//   (no marker)     integration: runs on SQLite, then on PostgreSQL
//   // tier: compat  other people's programs judging mailroom from outside: real clients (the hosted service's
//                   official ones, framework mailers; Ruby, PHP and Python programs installed by
//                   scripts/setup.sh) and real checkers of the mail it writes (dkimpy, opendkim, SpamAssassin):
//                   on SQLite (or the one MAILROOM_TEST_DB names)
//   // tier: slow   multi-second load and robustness walks: on both databases
// and a fifth tier, perf, of the timing bounds (milliseconds of CPU or wall clock). The other tiers assert
// work (steps, bytes, refusals), never time: up to four test processes share the CPUs there, and the four
// tiers run as one run per database (the slow files first, then on the first database the compat and unit
// files, then the integration files), so that no tier's last files leave the CPUs idle. A test that measures
// ends its name with " (timed)" and asserts its bound through test/helpers/timing.ts, which judges it in
// the perf tier only. The perf tier runs last, one file at a time, only the timed tests of the files that
// import that helper, on both databases when the file uses the test database, once otherwise.
// A unit file that reaches the test database (test/helpers/database.ts, directly or through another test
// helper) is refused: it would quietly be tested on one database only.
//
//   npm test                                   every tier: the SQLite run, the PostgreSQL run, then perf
//   npm test -- --tier unit                    one tier (--tier integration,slow: several)
//   npm test -- test/http                      only files under that path (file or folder), every tier
//   MAILROOM_TEST_DB=sqlite npm test           only one database (for the integration and slow tiers)
//   MAILROOM_TEST_CONCURRENCY=2 npm test       test processes at once (default 4; the perf tier always 1)
//   MAILROOM_TEST_TSX=1 npm test               under tsx, not from the transpiled copy (scripts/test-build.mjs)
//   MAILROOM_TEST_BUNDLE=0 npm test            each process loads the copy's modules one by one, not a bundle
//                                              of its entry (scripts/test-bundle.mjs)
//   MAILROOM_TEST_FILES_PER_PROCESS=1 npm test  unit and integration files each in a process of its own
//                                              (default 8 to a process, one after another: test-groups.mjs)
//   MAILROOM_TEST_FILE_TIMEOUT=600 npm test    seconds a test process (a file or a group) may run before it is
//                                              killed and counted as failed (default 1800: a bound for a hang,
//                                              far above what one takes on a loaded machine)
//   MAILROOM_TEST_SLOWEST=30 npm test          the slowest files listed after each run (default 15)
// After each run the runner lists its slowest files (wall and CPU time of each file's process,
// scripts/test-file-times.mjs) and how much of the CPUs the run used, its files' and the whole machine's.
// PostgreSQL: MAILROOM_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test). When it cannot be
// reached the PostgreSQL runs are skipped with a loud message, never silently, and their files are counted
// as skipped; under CI=true that fails.
// The closing line counts tests; "skipped" also counts skipped suites (a `describe` with `skip`, whose tests
// never run) and files not run because their database was unreachable.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import pg from 'pg';
import { buildTests } from './test-build.mjs';
import { bundler } from './test-bundle.mjs';
import { groupEntries, groupFiles } from './test-groups.mjs';

const TIERS = ['unit', 'integration', 'compat', 'slow', 'perf'];
const root = new URL('..', import.meta.url).pathname;

function parseArgs(argv) {
  const paths = [];
  let tiers = TIERS;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = a === '--tier' ? argv[++i] : a.startsWith('--tier=') ? a.slice('--tier='.length) : undefined;
    if (value === undefined) {
      paths.push(a);
      continue;
    }
    tiers = value.split(',').filter(Boolean);
    const unknown = tiers.filter((t) => !TIERS.includes(t));
    if (unknown.length || tiers.length === 0) {
      console.error(`unknown tier "${unknown.join(',') || value}": use ${TIERS.join(', ')} (comma-separated for several)`);
      process.exit(2);
    }
  }
  return { paths: paths.length ? paths : ['test'], tiers: TIERS.filter((t) => tiers.includes(t)) };
}

function collect(p, out) {
  const st = statSync(p);
  if (st.isDirectory()) for (const e of readdirSync(p).sort()) collect(join(p, e), out);
  else if (/\.test\.ts$/.test(p)) out.push(p);
  return out;
}

/** The tier named on the file's first line; integration when there is none. */
function tierOf(file) {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0];
  const m = /^\/\/\s*tier:\s*(\w+)/.exec(first);
  if (!m) return 'integration';
  // perf is not a file's tier: its tests are the timed tests of the other tiers' files (see the header).
  if (!TIERS.includes(m[1]) || m[1] === 'perf') throw new Error(`${relative(root, file)}: unknown tier "${m[1]}" (use unit or slow, or no marker for integration)`);
  return m[1];
}

/** Relative imports that are not type-only, resolved to files. */
function localImports(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+'(\.[^']+)'/gm)) {
    const target = resolve(dirname(file), m[1].replace(/\.js$/, '.ts'));
    out.push(target);
  }
  return out;
}

const DATABASE_HELPER = join(root, 'test/helpers/database.ts');
/** Whether a test file reaches the test database through the test helpers it imports. */
function usesDatabase(file, seen = new Set()) {
  for (const dep of localImports(file)) {
    if (dep === DATABASE_HELPER) return true;
    if (seen.has(dep) || !dep.startsWith(join(root, 'test')) || !existsSync(dep)) continue;
    seen.add(dep);
    if (usesDatabase(dep, seen)) return true;
  }
  return false;
}

const pgUrl = process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
let pgState;
async function pgReachable() {
  if (pgState !== undefined) return pgState;
  const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    await c.end();
    pgState = true;
  } catch (err) {
    console.error(`PostgreSQL at ${pgUrl} is not reachable: ${err.message}`);
    pgState = false;
  }
  return pgState;
}

/** Counts from the TAP file of one run. Node counts skipped tests but not skipped suites: those are read
 * from the `# SKIP` lines whose YAML block says `type: 'suite'`. */
function readTap(text) {
  const num = (k) => Number((new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text) ?? [])[1] ?? 0);
  const lines = text.split('\n');
  let skippedSuites = 0;
  let filteredOut = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*ok \d+ - .*# SKIP/.test(lines[i])) continue;
    let suite = false;
    for (let j = i + 1; j < lines.length && !/^\s*\.\.\.$/.test(lines[j]); j++) {
      if (/^\s*type: 'suite'$/.test(lines[j])) suite = true;
    }
    // Not skipped: a test the perf tier's name pattern leaves out ran in its own tier, and a timed test or a
    // timing-only test or suite (test/helpers/timing.ts, LEFT_TO_PERF and TIMING_ONLY) left out of its own
    // tier runs in the perf tier.
    if (/# SKIP (test name does not match pattern|a timing bound only: asserted in the perf tier|a timed test: run whole in the perf tier)$/.test(lines[i])) {
      if (!suite) filteredOut++;
    } else if (suite) skippedSuites++;
  }
  return {
    pass: num('pass'),
    fail: num('fail') + num('cancelled'),
    skippedTests: num('skipped') + num('todo') - filteredOut,
    skippedSuites,
  };
}

/** Machine-wide CPU time from /proc/stat (Linux): busy and total jiffies; null elsewhere. */
function cpuJiffies() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** CPU seconds of this runner's ended descendants (the test processes and whatever they started and waited
 * for: serve children, browsers, checkers), from /proc/self/stat's cutime and cstime (Linux); null elsewhere. */
function treeCpuS() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return null;
  }
}

/** The load average over one minute, sampled while a run lasts (Linux); null elsewhere. */
function loadSampler() {
  const samples = [];
  const read = () => {
    try {
      samples.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]));
    } catch {
      /* not Linux */
    }
  };
  read();
  const timer = setInterval(read, 5000);
  return () => {
    clearInterval(timer);
    read();
    return samples.length ? { mean: samples.reduce((a, b) => a + b, 0) / samples.length, max: Math.max(...samples) } : null;
  };
}

/** A test file's name relative to the checkout, from its transpiled copy or itself. */
function relName(f) {
  return build ? relative(build.dir, f).replace(/\.js$/, '.ts') : relative(root, f);
}

const SLOWEST = Number(process.env.MAILROOM_TEST_SLOWEST ?? 15);
const CPUS = availableParallelism();

/** The per-file report of a run: its slowest files (wall and CPU of each file's process, from
 * test-file-times.mjs) and how much of the CPUs the run used, its files' own and the machine's. */
function report(label, times, wallMs, cpu0, cpu1, load, filesOf, tree) {
  const rel = (entry) => (filesOf.get(entry) ?? [entry]).map(relName).join(' + ');
  const sorted = [...times].sort((a, b) => b.wallMs - a.wallMs);
  const fileCpu = times.reduce((a, t) => a + t.cpuMs, 0);
  console.log(`\n--- ${label}: the ${Math.min(SLOWEST, sorted.length)} slowest of ${times.length} files (wall s / CPU s of each file's process) ---`);
  for (const t of sorted.slice(0, SLOWEST)) console.log(`${(t.wallMs / 1000).toFixed(1).padStart(7)} ${(t.cpuMs / 1000).toFixed(1).padStart(6)}  ${rel(t.file)}`);
  const machine = cpu0 && cpu1 ? ` the machine's CPUs ${((100 * (cpu1.busy - cpu0.busy)) / (cpu1.total - cpu0.total)).toFixed(0)}% busy;` : '';
  // Machine jiffies are 1/100 s on Linux. What the machine did beyond the run's process tree is mostly the
  // PostgreSQL server, and anything else running at the time.
  const others = cpu0 && cpu1 && tree != null ? ` the files' process tree ${tree.toFixed(0)} s of CPU, the rest of the machine ${((cpu1.busy - cpu0.busy) / 100 - tree).toFixed(0)} s;` : '';
  const loads = load ? ` load ${load.mean.toFixed(1)} mean, ${load.max.toFixed(1)} max;` : '';
  console.log(
    `${label}: ${(wallMs / 1000).toFixed(1)} s wall on ${CPUS} CPUs; the files' processes used ${(fileCpu / 1000).toFixed(0)} s of CPU (${((100 * fileCpu) / (wallMs * CPUS)).toFixed(0)}% of the CPUs);${machine}${others}${loads}`.replace(/;$/, ''),
  );
}

/** Runs files under `node --test`, `parts` in their order ([files, groupSize]: the files of a part with a
 * groupSize above 1 run that many to a process); resolves with the counts of their TAP report, the per-file
 * times, and the processes that hit the timeout. */
async function runFiles(label, parts, dialect, concurrency, timing, processTimeoutS, untimedOnly) {
  const stamp = `${process.pid}-${Date.now()}`;
  // Several files to a process only from the transpiled mirror (its folder holds the groups' files).
  const grouped = parts.flatMap(([files, size]) => (build ? groupFiles(files, size) : files.map((f) => [f])));
  const groups = build ? groupEntries(join(build.dir, '.test-groups'), stamp, grouped.map((g) => g.map(build.file))) : grouped.map(([f]) => ({ entry: f, files: [f] }));
  if (bundled) {
    const bundles = await bundled(groups.map((g) => g.entry));
    for (const g of groups) g.entry = bundles.get(g.entry);
  }
  const filesOf = new Map(groups.map((g) => [g.entry, g.files]));
  const tap = join(tmpdir(), `mailroom-tap-${stamp}.txt`);
  const timesFile = join(tmpdir(), `mailroom-times-${stamp}.jsonl`);
  const started = Date.now();
  const cpu0 = cpuJiffies();
  const tree0 = treeCpuS();
  const stopLoad = loadSampler();
  const child = spawn(
    process.execPath,
    [
      // The tests run from a transpiled mirror of the checkout (test-build.mjs), or under tsx when
      // MAILROOM_TEST_TSX=1 (for comparing the two: bench/README.md, "CI time").
      ...(build ? ['--enable-source-maps'] : ['--import', 'tsx']),
      '--import', new URL('./test-file-times.mjs', import.meta.url).href,
      '--test',
      `--test-concurrency=${concurrency}`,
      // A bound on each process (and the default of each test in it): a process that hangs is killed and
      // reported, and the run goes on.
      `--test-timeout=${processTimeoutS * 1000}`,
      ...(timing ? ['--test-name-pattern=\\(timed\\)$'] : []),
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      ...groups.map((g) => g.entry),
    ],
    {
      stdio: 'inherit',
      cwd: root,
      env: { ...process.env, MAILROOM_TEST_DB: dialect, MAILROOM_TEST_FILE_TIMES: timesFile, ...(timing ? { MAILROOM_TEST_TIMING: '1' } : {}), ...(untimedOnly ? { MAILROOM_TEST_UNTIMED: '1' } : {}) },
    },
  );
  return new Promise((done) => {
    child.on('exit', (code) => {
      const wallMs = Date.now() - started;
      const load = stopLoad();
      let text = '';
      try {
        text = readFileSync(tap, 'utf8');
        rmSync(tap);
      } catch {
        /* the runner died before writing */
      }
      let times = [];
      try {
        times = readFileSync(timesFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
        rmSync(timesFile);
      } catch {
        /* no file ran to its end */
      }
      const tree1 = treeCpuS();
      report(label, times, wallMs, cpu0, cpuJiffies(), load, filesOf, tree0 != null && tree1 != null ? tree1 - tree0 : null);
      const hung = timedOutFiles(text).map((entry) => (filesOf.get(entry) ?? [entry]).map(relName));
      for (const f of hung) {
        const what = f.length === 1 ? f[0] : `the process of ${f.join(', ')} (one of them; its last test above names it)`;
        console.log(`${label}: ${what} did not end within ${processTimeoutS} s: killed, counted as failed`);
      }
      done({ ok: code === 0 && text !== '', counts: readTap(text), wrote: text !== '', wallMs, hung });
    });
  });
}

/** The files whose process the runner killed at the per-file timeout: Node reports such a file as one
 * failed top-level test named by its path, of failureType testTimeoutFailure. */
function timedOutFiles(text) {
  const out = [];
  for (const m of text.matchAll(/^not ok \d+ - (\/.*)\n((?: {2}.*\n)*)/gm)) {
    if (/^ {2}failureType: 'testTimeoutFailure'$/m.test(m[2])) out.push(m[1]);
  }
  return out;
}

const { paths, tiers } = parseArgs(process.argv.slice(2));
const files = paths.flatMap((t) => collect(resolve(root, t), []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const byTier = new Map(TIERS.map((t) => [t, []]));
for (const f of files) byTier.get(tierOf(f)).push(f);
byTier.set('perf', files.filter((f) => /^import [^;]*from '[./]*helpers\/timing\.js';$/m.test(readFileSync(f, 'utf8'))));
const misfiled = byTier.get('unit').filter((f) => usesDatabase(f));
if (misfiled.length) {
  for (const f of misfiled) console.error(`${relative(root, f)} is marked "tier: unit" but uses the test database (test/helpers/database.ts): remove the marker`);
  process.exit(1);
}

const databases = process.env.MAILROOM_TEST_DB ? [process.env.MAILROOM_TEST_DB] : ['sqlite', 'postgres'];
const totals = { pass: 0, fail: 0, skippedTests: 0, skippedSuites: 0, skippedFiles: 0 };
const timings = [];
let exitCode = 0;
const build = process.env.MAILROOM_TEST_TSX === '1' ? null : await buildTests(root);
if (build) process.on('exit', build.remove);
// Each test process's entry bundled with what it imports (test-bundle.mjs), unless MAILROOM_TEST_BUNDLE=0.
const bundled = build && process.env.MAILROOM_TEST_BUNDLE !== '0' ? bundler(root, build.dir) : null;
const concurrency = Number(process.env.MAILROOM_TEST_CONCURRENCY ?? 4);
// Files a process runs, one after another (test-groups.mjs), of the tiers of many short files; the compat and
// slow tiers' files are few and long, and the perf tier's run alone.
const groupSize = Number(process.env.MAILROOM_TEST_FILES_PER_PROCESS ?? 8);
// A bound on one test process, a file or a group: far above what one takes on a loaded machine, so that it
// only catches a hang.
const processTimeoutS = Number(process.env.MAILROOM_TEST_FILE_TIMEOUT ?? 1800);
const wanted = (tier) => tiers.includes(tier) && byTier.get(tier).length > 0;

/**
 * The runs: one per database of the tiers that are not timed, then the perf tier's. A database's run holds
 * the slow files (first, the longest), then on the first database only the compat and unit files (a unit file
 * touches no database, so once is enough; the compat tier judges the HTTP surface and the mail written, the
 * same on either database, and costs minutes on each), then the integration files. In one run the CPUs left
 * idle while one tier's last files end are taken by the next's, which separate runs left idle.
 */
function plannedRuns() {
  const runs = [];
  databases.forEach((d, i) => {
    const parts = [];
    const names = [];
    const add = (tier, size) => {
      if (!wanted(tier)) return;
      parts.push([byTier.get(tier), size]);
      names.push(`${tier} ${byTier.get(tier).length}`);
    };
    add('slow', 1);
    if (i === 0) add('compat', 1);
    if (i === 0) add('unit', groupSize);
    add('integration', groupSize);
    if (parts.length) runs.push({ label: `${d} run (files: ${names.join(', ')})`, parts, dialect: d, timing: false, needsDb: names.some((n) => !n.startsWith('unit')) });
  });
  if (wanted('perf')) {
    const perf = byTier.get('perf');
    const plain = perf.filter((f) => !usesDatabase(f));
    const withDb = perf.filter((f) => usesDatabase(f));
    if (plain.length) runs.push({ label: 'perf tier (no database)', parts: [[plain, 1]], dialect: 'sqlite', timing: true, needsDb: false });
    if (withDb.length) for (const d of databases) runs.push({ label: `perf tier on ${d}`, parts: [[withDb, 1]], dialect: d, timing: true, needsDb: true });
  }
  return runs;
}

for (const run of plannedRuns()) {
  const count = run.parts.reduce((a, [f]) => a + f.length, 0);
  if (run.needsDb && run.dialect === 'postgres' && !(await pgReachable())) {
    console.error('\n############################################################');
    console.error(`##  SKIPPING the ${run.label} (${count} files).`);
    console.error('############################################################\n');
    totals.skippedFiles += count;
    if (process.env.CI) exitCode = 1;
    continue;
  }
  console.log(`\n=== ${run.label} ===\n`);
  // When the perf tier runs too, it runs each timed test whole (its work and its bounds, on each database the
  // file uses), so the other runs leave the timed tests to it rather than run them twice.
  const r = await runFiles(run.label, run.parts, run.dialect, run.timing ? 1 : concurrency, run.timing, processTimeoutS, wanted('perf'));
  timings.push(`${run.label}: ${(r.wallMs / 1000).toFixed(1)} s`);
  totals.pass += r.counts.pass;
  totals.fail += r.counts.fail + (r.wrote ? 0 : 1);
  totals.skippedTests += r.counts.skippedTests;
  totals.skippedSuites += r.counts.skippedSuites;
  if (!r.ok) exitCode = 1;
}

const skipped = totals.skippedTests + totals.skippedSuites + totals.skippedFiles;
const parts = [
  totals.skippedTests && `${totals.skippedTests} tests`,
  totals.skippedSuites && `${totals.skippedSuites} suites`,
  totals.skippedFiles && `${totals.skippedFiles} files`,
].filter(Boolean);
console.log(`\n${timings.join('\n')}`);
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${skipped} skipped${parts.length ? ` (${parts.join(', ')})` : ''}`);
process.exit(exitCode);
