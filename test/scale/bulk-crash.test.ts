// tier: slow
// A bulk request killed mid-expansion (issue 25): one `mailroom serve` process takes a 10,000-recipient
// POST /email/bulk and is SIGKILLed while its workers compile the pages (some committed, others not), then
// started again. Every recipient gets exactly one message in the store and exactly one copy at the SMTP sink,
// and the request ends Completed. Both databases (one `serve` process each: the SQLite deployment, and the
// simplest PostgreSQL one).
//
// Delivery is at-least-once by design: a delivery in flight at the kill may be sent again (README, "Crash
// safety"). To test the expansion's exactly-once alone, the first process relays to a host that accepts TCP
// connections and never greets, so no copy leaves it; its held deliveries come back when their leases run
// out (shortened here), and the restarted process sends everything to the real sink.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../../src/infra/db/database.js';
import { PAGES_PER_JOB } from '../../src/domain/bulk/jobs.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { databaseUrlFor, runMailroom, runToEnd, type MailroomProcess } from '../helpers/process.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';

const RECIPIENTS = Number(process.env.BULK_CRASH_RECIPIENTS ?? 10_000);
const LEASE_SECONDS = 5;
const SERVER_TOKEN = 'bulk-crash-server-token-0000000001';
const FROM = 'news@crash.example';
const RUN = randomBytes(4).toString('hex');
const address = (i: number) => `r${i}@d${i % 20}.${RUN}.crash.example`;
const OURS = new RegExp(`@d\\d+\\.${RUN}\\.crash\\.example$`);

describe(`a bulk request, its serve process killed mid-expansion (${TEST_DIALECT})`, () => {
  let tdb: TestDatabase;
  let db: Db;
  let sink: SmtpSink;
  let silent: net.Server;
  const held: net.Socket[] = [];
  const procs: MailroomProcess[] = [];
  let env: Record<string, string>;
  const start = async (relayPort: number) => {
    const p = runMailroom(['serve'], { ...env, MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${relayPort}` });
    procs.push(p);
    const port = Number((await p.waitForLine(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/, 90_000))[1]);
    await p.waitForLine(/mailroom worker started/, 90_000);
    return { p, port };
  };

  before(async () => {
    tdb = await createTestDatabase();
    sink = await startSmtpSink();
    // Accepts connections and says nothing: a delivery attempt waits there until the process dies.
    silent = net.createServer((socket) => void held.push(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    env = {
      MAILROOM_DATABASE_URL: databaseUrlFor(tdb),
      MAILROOM_PORT: '0',
      MAILROOM_INBOUND_SMTP_PORT: '0',
      MAILROOM_SUBMISSION_PORT: 'off',
      MAILROOM_SERVER_TOKEN: SERVER_TOKEN,
      MAILROOM_ACCOUNT_TOKEN: 'bulk-crash-account-token-00000001',
      MAILROOM_SECRET_KEY: 'bulk-crash-secret-key-0123456789abcdef',
      // 32 slots for the bulk queue: on a loaded machine a delivery's round trips (process, PostgreSQL, sink)
      // take long, and the test's time is that latency divided by the slots.
      MAILROOM_DELIVERY_CONCURRENCY: '64',
      MAILROOM_DELIVERY_DOMAIN_CONCURRENCY: '16',
      MAILROOM_DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
      MAILROOM_LOG_LEVEL: 'info',
    };
  });

  after(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    for (const s of held) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await db?.close();
    await sink?.close();
    await tdb?.drop();
  });

  it('delivers every recipient exactly once after a kill -9 and a restart', async () => {
    const first = await start((silent.address() as net.AddressInfo).port);
    const added = await runToEnd(['sender', 'add', FROM, '--name', 'Crash', '--confirmed'], env, 90_000);
    assert.equal(added.code, 0, added.stderr);
    db = openDatabase(tdb.url, tdb.options);

    const res = await fetch(`http://127.0.0.1:${first.port}/email/bulk`, {
      method: 'POST',
      headers: { 'X-Service-Server-Token': SERVER_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        From: FROM,
        Subject: 'Issue for {{name}}',
        TextBody: 'Dear {{name}}',
        Messages: Array.from({ length: RECIPIENTS }, (_, i) => ({ To: address(i), TemplateModel: { name: `R${i}` } })),
      }),
    });
    const answer = (await res.json()) as { Id: string; Status: string };
    assert.equal(res.status, 200, JSON.stringify(answer));
    const id = answer.Id;
    const progress = () => db.db.selectFrom('bulk_requests').select(['status', 'pages', 'pages_done', 'compiled']).where('id', '=', id).executeTakeFirstOrThrow();

    // Mid-expansion: at least one job's pages committed, and pages still to compile.
    const at = await waitFor(
      async () => {
        const p = await progress();
        return p.pages_done >= PAGES_PER_JOB && p.pages_done < p.pages ? p : null;
      },
      { timeoutMs: 120_000, intervalMs: 2, what: 'the expansion to be under way' },
    );
    first.p.kill('SIGKILL');
    assert.equal(await first.p.exited, 'SIGKILL');
    const killed = await progress();
    assert.ok(killed.pages_done < killed.pages, `the expansion was over before the kill: ${JSON.stringify(killed)}`);
    assert.equal(sink.messages.filter((m) => m.to.every((a) => OURS.test(a))).length, 0, 'nothing reached the sink before the kill');

    const t0 = Date.now();
    await start(sink.port);
    const done = await waitFor(
      async () => {
        const p = await progress();
        return p.status === 'Completed' ? p : null;
      },
      { timeoutMs: 600_000, intervalMs: 100, what: 'the request to be Completed' },
    ).catch(async (err: Error) => {
      // Say where it stands: the request, the jobs left by queue, the messages by status.
      const jobs = await db.db.selectFrom('jobs').select(['queue', sql<number>`count(*)`.as('n'), sql<number>`min(attempts)`.as('attempts')]).groupBy('queue').execute();
      const statuses = await db.db.selectFrom('messages').select(['status', sql<number>`count(*)`.as('n')]).where('bulk_id', '=', id).groupBy('status').execute();
      const delivered = sink.messages.filter((m) => m.to.every((a) => OURS.test(a))).length;
      throw new Error(`${err.message}; request ${JSON.stringify(await progress())}; jobs ${JSON.stringify(jobs)}; messages ${JSON.stringify(statuses)}; at the sink ${delivered}`);
    });
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);

    assert.equal(done.compiled, RECIPIENTS);
    const stored = await db.db
      .selectFrom('message_recipients')
      .innerJoin('messages', 'messages.id', 'message_recipients.message_id')
      .select([sql<number>`count(*)`.as('n'), sql<number>`count(distinct message_recipients.email)`.as('distinct')])
      .where('messages.bulk_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(stored.n), Number(stored.distinct)], [RECIPIENTS, RECIPIENTS], 'one stored message per recipient');
    const copies = new Map<string, number>();
    for (const m of sink.messages) for (const to of m.to) if (OURS.test(to)) copies.set(to, (copies.get(to) ?? 0) + 1);
    const missing = Array.from({ length: RECIPIENTS }, (_, i) => address(i)).filter((a) => !copies.has(a));
    const twice = [...copies].filter(([, n]) => n > 1).map(([a]) => a);
    console.log(
      `bulk-crash (${TEST_DIALECT}): ${RECIPIENTS} recipients; killed with ${at.pages_done}-${killed.pages_done} of ${killed.pages} pages compiled; ` +
        `after the restart Completed in ${seconds} s; ${copies.size} delivered, ${missing.length} missing, ${twice.length} twice`,
    );
    assert.deepEqual(missing.slice(0, 5), [], `${missing.length} recipients never delivered`);
    assert.deepEqual(twice.slice(0, 5), [], `${twice.length} recipients delivered twice`);
  });
});
