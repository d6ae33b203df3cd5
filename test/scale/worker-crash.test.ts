// tier: slow
// Scale-out, proven (issues 17 and 20): two `api` and two `worker` processes (`mailroom serve --role ...`) on
// one database, sends spread over both APIs through /email/batch, one worker killed with SIGKILL mid-load.
// Every accepted message reaches the SMTP sink (counted by Message-ID), and the only duplicates are messages
// whose jobs the killed worker held at that instant: at most MAILROOM_DELIVERY_CONCURRENCY of them (the bound
// the README states, "Crash safety"). The killed worker's jobs come back after its lease (shortened here
// with MAILROOM_DELIVERY_LEASE_SECONDS so that the test runs in seconds).
//
// Each worker relays to its own sink, so that a copy shows which worker sent it.
//
// Several processes on one database is the PostgreSQL deployment (README, "Commands": roles); SQLite runs as
// one `serve` process. On SQLite the same bound is shown for that deployment: the one process killed
// mid-load and started again.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../../src/infra/db/database.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { databaseUrlFor, runMailroom, runToEnd, type MailroomProcess } from '../helpers/process.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';

const MESSAGES = Number(process.env.SCALE_MESSAGES ?? 2000);
const BATCH = 100;
const CONCURRENCY = 16; // MAILROOM_DELIVERY_CONCURRENCY of each worker: the stated bound on duplicates
const LEASE_SECONDS = 6;
const SERVER_TOKEN = 'scale-test-server-token-0000000001';
/** What every spawned process of one run shares: its database, its tokens, and ports of its own. */
const baseEnv = (tdb: TestDatabase) => ({
  MAILROOM_DATABASE_URL: databaseUrlFor(tdb),
  MAILROOM_PORT: '0',
  MAILROOM_INBOUND_SMTP_PORT: '0',
  MAILROOM_SUBMISSION_PORT: 'off',
  MAILROOM_SERVER_TOKEN: SERVER_TOKEN,
  MAILROOM_ACCOUNT_TOKEN: 'scale-test-account-token-000000001',
  MAILROOM_SECRET_KEY: 'scale-test-secret-key-0123456789abcdef',
});
const FROM = 'sender@scale.example';
// The sinks listen on ports the system picks, maybe one another test's mailroom still retries after its own
// sink closed (the machine is shared): only mail to this run's recipient domains counts.
const RUN = randomBytes(4).toString('hex');
const OURS = new RegExp(`@d\\d+\\.${RUN}\\.scale\\.example$`);

/** Message-ID header -> the MessageID mailroom gave it (`<id@return-path domain>`). */
function messageIdOf(raw: string): string {
  const m = /^Message-ID:\s*<([^@>]+)@/im.exec(raw);
  assert.ok(m, 'every delivered copy carries mailroom\'s Message-ID');
  return m[1];
}

type Item = { From: string; To: string; Subject: string; TextBody: string };

function makeBatches(): Item[][] {
  return Array.from({ length: Math.ceil(MESSAGES / BATCH) }, (_, b) =>
    Array.from({ length: Math.min(BATCH, MESSAGES - b * BATCH) }, (_, i) => {
      const n = b * BATCH + i;
      return { From: FROM, To: `rcpt${n}@d${n % 40}.${RUN}.scale.example`, Subject: `scale ${n}`, TextBody: `message ${n}` };
    }),
  );
}

/** Sends the batches over the APIs on `ports` (one request at a time per API); adds each MessageID to `accepted`. */
async function sendAll(ports: number[], batches: Item[][], accepted: Set<string>): Promise<void> {
  let next = 0;
  const sender = async (port: number) => {
    while (next < batches.length) {
      const batch = batches[next++];
      const res = await fetch(`http://127.0.0.1:${port}/email/batch`, {
        method: 'POST',
        headers: { 'X-Service-Server-Token': SERVER_TOKEN, 'Content-Type': 'application/json' },
        body: JSON.stringify(batch),
      });
      assert.equal(res.status, 200);
      for (const item of (await res.json()) as Array<{ ErrorCode: number; MessageID: string; Message: string }>) {
        assert.equal(item.ErrorCode, 0, item.Message);
        accepted.add(item.MessageID);
      }
    }
  };
  await Promise.all(ports.map((p) => sender(p)));
}

/** The delivery jobs a (dead) worker process still holds a lease on. */
async function heldBy(db: Db, pid: number): Promise<Array<{ id: number; message_id: string | null }>> {
  return db.db
    .selectFrom('jobs')
    .select(['id', 'message_id'])
    .where('queue', '=', 'deliver')
    .where(sql<boolean>`locked_by like ${`${pid}-%`}`)
    .execute();
}

async function untilNoDeliveryJobs(db: Db): Promise<void> {
  await waitFor(async () => (await db.db.selectFrom('jobs').select('id').where('queue', '=', 'deliver').limit(1).execute()).length === 0, {
    timeoutMs: 180_000,
    intervalMs: 100,
    what: 'every delivery job to finish',
  });
}

/** Message-ID -> the sinks (by name) that received a copy. */
const ours = (sink: SmtpSink) => sink.messages.filter((m) => m.to.every((a) => OURS.test(a))).length;
function copiesAt(named: Array<[string, SmtpSink]>): Map<string, string[]> {
  const copies = new Map<string, string[]>();
  for (const [name, sink] of named) {
    for (const m of sink.messages) {
      if (!m.to.every((a) => OURS.test(a))) continue;
      const id = messageIdOf(m.raw);
      copies.set(id, [...(copies.get(id) ?? []), name]);
    }
  }
  return copies;
}

/** Every accepted message sent, nothing else, each stored message Sent with one Delivered event. */
async function assertEveryMessageDelivered(db: Db, accepted: Set<string>, copies: Map<string, string[]>): Promise<void> {
  const missing = [...accepted].filter((id) => !copies.has(id));
  assert.deepEqual(missing, [], 'every accepted message reached the sink');
  const unknown = [...copies.keys()].filter((id) => !accepted.has(id));
  if (unknown.length > 0) {
    // Say what it was: a message stored without its id reaching the client (an accept-path fault).
    const rows = await db.db.selectFrom('messages').select(['id', 'subject', 'received_at', 'status']).where('id', 'in', unknown).execute();
    const subjects = await db.db.selectFrom('messages').select(['subject', sql<number>`count(*)`.as('n')]).where('subject', 'in', rows.map((r) => r.subject)).groupBy('subject').execute();
    assert.fail(`sent but never answered to the client: ${JSON.stringify(rows)}; stored copies per subject: ${JSON.stringify(subjects)}`);
  }
  const sent = await db.db.selectFrom('messages').select(sql<number>`count(*)`.as('n')).where('status', '=', 'Sent').executeTakeFirstOrThrow();
  assert.equal(Number(sent.n), accepted.size);
  const delivered = await db.db.selectFrom('message_events').select(sql<number>`count(*)`.as('n')).where('type', '=', 'Delivered').executeTakeFirstOrThrow();
  assert.equal(Number(delivered.n), accepted.size, 'one Delivered event per message, also for those sent twice');
}

describe('two api and two worker processes, one worker killed mid-load', { skip: TEST_DIALECT === 'sqlite' ? 'several processes on one database is the PostgreSQL deployment; SQLite: the next suite' : false }, () => {
  let tdb: TestDatabase;
  let db: Db;
  const sinks: SmtpSink[] = [];
  const procs: MailroomProcess[] = [];
  let env: Record<string, string>;
  const ports: number[] = [];
  let workers: MailroomProcess[] = [];

  before(async () => {
    tdb = await createTestDatabase();
    db = openDatabase(tdb.url, tdb.options);
    sinks.push(await startSmtpSink(), await startSmtpSink());
    env = {
      ...baseEnv(tdb),
      MAILROOM_DATABASE_POOL_SIZE: '6',
      MAILROOM_LOG_LEVEL: 'info',
    };
    // The first API creates the account and server; the others start once it has (first-start races are
    // issue 20's item 1, tested elsewhere).
    const api = (n: number) => runMailroom(['serve', '--role', 'api'], { ...env, MAILROOM_EHLO_NAME: `api${n}.scale.example` });
    const first = api(1);
    procs.push(first);
    ports.push(Number((await first.waitForLine(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/, 90_000))[1]));
    const second = api(2);
    procs.push(second);
    workers = sinks.map((sink, i) =>
      runMailroom(['serve', '--role', 'worker'], {
        ...env,
        // A line per delivery would be 2,000 lines per worker: warnings only.
        MAILROOM_LOG_LEVEL: 'warn',
        MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`,
        MAILROOM_DELIVERY_CONCURRENCY: String(CONCURRENCY),
        MAILROOM_DELIVERY_DOMAIN_CONCURRENCY: '8',
        MAILROOM_DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
        MAILROOM_EHLO_NAME: `worker${i + 1}.scale.example`,
      }),
    );
    procs.push(...workers);
    ports.push(Number((await second.waitForLine(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/, 90_000))[1]));
    const added = await runToEnd(['sender', 'add', FROM, '--name', 'Scale', '--confirmed'], env, 90_000);
    assert.equal(added.code, 0, added.stderr);
    // Both workers are running (their heartbeat rows) before the load starts.
    await waitFor(
      async () => {
        const rows = await db.db.selectFrom('worker_heartbeats').select('pid').execute();
        return workers.every((w) => rows.some((r) => r.pid === w.child.pid));
      },
      { timeoutMs: 90_000, intervalMs: 100, what: 'both workers to beat' },
    );
  });

  after(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await db?.close();
    await Promise.all(sinks.map((s) => s.close()));
    await tdb?.drop();
  });

  it('delivers every accepted message, and duplicates only what the killed worker held, at most its concurrency', async () => {
    const [sinkA, sinkB] = sinks;
    const [victim] = workers;
    const accepted = new Set<string>();
    // Batches alternate between the two APIs, one request at a time on each, while the workers deliver.
    const sending = sendAll(ports, makeBatches(), accepted);

    // Until the kill, the most delivery jobs either worker held at once (sampled): never above its concurrency.
    let mostHeld = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await db.db.selectFrom('jobs').select(['locked_by', sql<number>`count(*)`.as('n')]).where('queue', '=', 'deliver').where('locked_by', 'is not', null).groupBy('locked_by').execute();
        for (const r of rows) mostHeld = Math.max(mostHeld, Number(r.n));
      }
    })();

    // Mid-load: the victim has delivered a good share and the queue is not empty.
    await waitFor(() => ours(sinkA) >= Math.min(300, MESSAGES / 8), { timeoutMs: 120_000, intervalMs: 5, what: 'the first worker to be busy' });
    sampling = false;
    await sampler;
    const pid = victim.child.pid!;
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    assert.equal(await victim.exited, 'SIGKILL');
    // What the dead worker held: its leases stay until they run out.
    const held = await heldBy(db, pid);
    const heldMessages = new Set(held.map((j) => j.message_id));
    const receivedByVictim = ours(sinkA);

    await sending;
    assert.equal(accepted.size, MESSAGES);
    await untilNoDeliveryJobs(db);
    const recoveredMs = Date.now() - killedAt;
    const copies = copiesAt([['A', sinkA], ['B', sinkB]]);
    await assertEveryMessageDelivered(db, accepted, copies);
    const duplicated = [...copies].filter(([, c]) => c.length > 1);
    const summary =
      `${MESSAGES} messages; the killed worker had delivered ${receivedByVictim} and held ${held.length} jobs; ` +
      `${duplicated.length} delivered twice; every job done ${(recoveredMs / 1000).toFixed(1)} s after the kill (lease ${LEASE_SECONDS} s); ` +
      `at most ${mostHeld} jobs held by one worker before the kill`;
    console.log(`worker-crash (${TEST_DIALECT}): ${summary}`);

    // The runner holds no more unsettled jobs than its concurrency ...
    assert.ok(held.length <= CONCURRENCY, `held ${held.length} > ${CONCURRENCY}: ${summary}`);
    assert.ok(mostHeld <= CONCURRENCY, `a worker held ${mostHeld} > ${CONCURRENCY}: ${summary}`);
    // ... and only those can be sent twice: once by the victim, once more by the survivor after the lease.
    assert.ok(duplicated.length <= CONCURRENCY, summary);
    for (const [id, c] of duplicated) {
      assert.ok(heldMessages.has(id), `${id} was sent twice but the killed worker did not hold it: ${summary}`);
      assert.deepEqual(c.sort(), ['A', 'B'], `${id}: one copy from each worker`);
    }
    // The dead worker's jobs came back after its lease, not the old ten minutes.
    assert.ok(recoveredMs < (LEASE_SECONDS + 60) * 1000, summary);
  });
});

describe('one process on SQLite killed mid-load and started again', { skip: TEST_DIALECT === 'postgres' ? 'PostgreSQL: the suite above, with separate roles' : false }, () => {
  let tdb: TestDatabase;
  let db: Db;
  let sink: SmtpSink;
  let env: Record<string, string>;
  const procs: MailroomProcess[] = [];
  const start = async () => {
    const p = runMailroom(['serve'], env);
    procs.push(p);
    const port = Number((await p.waitForLine(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/, 90_000))[1]);
    await p.waitForLine(/mailroom worker started/, 90_000);
    return { p, port };
  };

  before(async () => {
    tdb = await createTestDatabase();
    sink = await startSmtpSink();
    env = {
      ...baseEnv(tdb),
      MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`,
      MAILROOM_DELIVERY_CONCURRENCY: String(CONCURRENCY),
      MAILROOM_DELIVERY_DOMAIN_CONCURRENCY: '8',
      MAILROOM_DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
      // Start lines only; a line per delivery would be thousands.
      MAILROOM_LOG_LEVEL: 'info',
    };
  });

  after(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await db?.close();
    await sink?.close();
    await tdb?.drop();
  });

  it('delivers every accepted message after the restart, and duplicates only what the process held, at most its concurrency', async () => {
    const first = await start();
    const added = await runToEnd(['sender', 'add', FROM, '--name', 'Scale', '--confirmed'], env, 90_000);
    assert.equal(added.code, 0, added.stderr);
    const accepted = new Set<string>();
    await sendAll([first.port, first.port], makeBatches(), accepted);
    assert.equal(accepted.size, MESSAGES);
    // Mid-load: part delivered, the rest queued. (Every message was answered first, so that no request is
    // cut by the kill: a message stored whose answer was lost is another matter, the API's.)
    await waitFor(() => ours(sink) >= Math.min(300, MESSAGES / 8), { timeoutMs: 120_000, intervalMs: 5, what: 'delivery to be under way' });
    const pid = first.p.child.pid!;
    first.p.kill('SIGKILL');
    const killedAt = Date.now();
    assert.equal(await first.p.exited, 'SIGKILL');
    const before = ours(sink);
    db = openDatabase(tdb.url, tdb.options);
    const held = await heldBy(db, pid);
    const heldMessages = new Set(held.map((j) => j.message_id));

    await start();
    await untilNoDeliveryJobs(db);
    const recoveredMs = Date.now() - killedAt;
    const copies = copiesAt([['sink', sink]]);
    await assertEveryMessageDelivered(db, accepted, copies);
    const duplicated = [...copies].filter(([, c]) => c.length > 1);
    const summary =
      `${MESSAGES} messages; ${before} delivered before the kill, the process held ${held.length} jobs; ` +
      `${duplicated.length} delivered twice; every job done ${(recoveredMs / 1000).toFixed(1)} s after the kill (lease ${LEASE_SECONDS} s)`;
    console.log(`worker-crash (${TEST_DIALECT}): ${summary}`);
    assert.ok(held.length <= CONCURRENCY, `held ${held.length} > ${CONCURRENCY}: ${summary}`);
    assert.ok(duplicated.length <= CONCURRENCY, summary);
    for (const [id, c] of duplicated) {
      assert.ok(heldMessages.has(id), `${id} was sent twice but the killed process did not hold it: ${summary}`);
      assert.equal(c.length, 2, `${id}: twice at most`);
    }
    assert.ok(recoveredMs < (LEASE_SECONDS + 90) * 1000, summary);
  });
});
