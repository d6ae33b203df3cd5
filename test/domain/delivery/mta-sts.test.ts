import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { policyFor, type StsLookup } from '../../../src/domain/delivery/mta-sts/cache.js';
import { mxMatches, parseStsPolicy, parseStsRecord } from '../../../src/domain/delivery/mta-sts/policy.js';
import { openDatabase, type Db } from '../../../src/infra/db/database.js';
import { migrateToLatest } from '../../../src/infra/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';

const tls = (name: string) => readFileSync(new URL(`../../fixtures/tls/${name}`, import.meta.url), 'utf8');
const POLICY = 'version: STSv1\r\nmode: enforce\r\nmx: mx.recipient.test\r\nmx: *.backup.recipient.test\r\nmax_age: 86400\r\n';

describe('MTA-STS policy text (RFC 8461 3)', () => {
  it('parses version, mode, every mx and max_age; ignores unknown keys; caps max_age at one year', () => {
    assert.deepEqual(parseStsPolicy(POLICY + 'extension: x\r\n'), { mode: 'enforce', mx: ['mx.recipient.test', '*.backup.recipient.test'], maxAge: 86400 });
    assert.equal(parseStsPolicy('version: STSv1\nmode: testing\nmx: a.example\nmax_age: 9999999999').maxAge, 31_557_600);
    assert.deepEqual(parseStsPolicy('version: STSv1\nmode: none\nmax_age: 60').mx, []);
  });
  it('refuses a wrong version, an unknown mode, a missing max_age, and no mx outside mode none', () => {
    assert.throws(() => parseStsPolicy(POLICY.replace('STSv1', 'STSv2')), /STSv1/);
    assert.throws(() => parseStsPolicy(POLICY.replace('enforce', 'strict')), /mode/);
    assert.throws(() => parseStsPolicy(POLICY.replace('max_age: 86400', '')), /max_age/);
    assert.throws(() => parseStsPolicy('version: STSv1\nmode: enforce\nmax_age: 60'), /mx/);
  });
  it('matches MX names exactly or by a wildcard of exactly one label, case-insensitively', () => {
    const p = parseStsPolicy(POLICY);
    assert.equal(mxMatches(p, 'MX.recipient.test.'), true);
    assert.equal(mxMatches(p, 'a.backup.recipient.test'), true);
    assert.equal(mxMatches(p, 'a.b.backup.recipient.test'), false);
    assert.equal(mxMatches(p, 'backup.recipient.test'), false);
    assert.equal(mxMatches(p, 'evil.test'), false);
  });
  it('reads the policy id of a _mta-sts TXT record', () => {
    assert.equal(parseStsRecord('v=STSv1; id=20261123T1000;'), '20261123T1000');
    assert.equal(parseStsRecord('v=STSv1;id=abc'), 'abc');
    assert.equal(parseStsRecord('v=spf1 -all'), null);
    assert.equal(parseStsRecord('v=STSv1; id=bad-id!'), null);
  });
});

describe('MTA-STS discovery, fetch over HTTPS and the shared cache', () => {
  let tdb: TestDatabase;
  let db: Db;
  let dns: TestDnsServer;
  let https: Server;
  let port = 0;
  let hits = 0;
  let answer: { status: number; type: string; body: string; location?: string } = { status: 200, type: 'text/plain', body: POLICY };
  let lookup: (now: number, ca?: string | null) => StsLookup;

  before(async () => {
    tdb = await createTestDatabase();
    db = openDatabase(tdb.url, tdb.options);
    await migrateToLatest(db);
    dns = await startDnsServer();
    https = createServer({ key: tls('recipient.key'), cert: tls('recipient.crt') }, (req, res) => {
      hits++;
      assert.equal(req.url, '/.well-known/mta-sts.txt');
      res.writeHead(answer.status, { 'content-type': answer.type, ...(answer.location ? { location: answer.location } : {}) });
      res.end(answer.body);
    });
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
    port = (https.address() as AddressInfo).port;
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    dns.set('_mta-sts.recipient.test', [{ type: 'TXT', data: 'v=STSv1; id=one;' }]);
    dns.set('mta-sts.recipient.test', [{ type: 'A', address: '127.0.0.1' }]);
    lookup = (now, ca = tls('test-ca.crt')) => ({ db: db.db, now, fetch: { dns: resolver, port, ca, timeoutMs: 3000 } });
  });
  after(async () => {
    https.close();
    await dns.close();
    await db.close();
    await tdb.drop();
  });

  it('fetches the policy once, then serves it from the cache while the id is unchanged', async () => {
    const t0 = Date.UTC(2026, 10, 23);
    const first = await policyFor('recipient.test', lookup(t0));
    assert.equal(first?.fetched, true);
    assert.equal(first?.policy.mode, 'enforce');
    const again = await policyFor('Recipient.Test', lookup(t0 + 60_000));
    assert.deepEqual([again?.fetched, again?.id, hits], [false, 'one', 1]);
  });

  it('a new id in DNS fetches again; a policy host that fails keeps the unexpired cached policy', async () => {
    const t0 = Date.UTC(2026, 10, 23, 1);
    dns.set('_mta-sts.recipient.test', [{ type: 'TXT', data: 'v=STSv1; id=two;' }]);
    answer = { status: 200, type: 'text/plain', body: POLICY.replace('enforce', 'testing') };
    const fresh = await policyFor('recipient.test', lookup(t0));
    assert.deepEqual([fresh?.fetched, fresh?.id, fresh?.policy.mode], [true, 'two', 'testing']);
    dns.set('_mta-sts.recipient.test', [{ type: 'TXT', data: 'v=STSv1; id=three;' }]);
    answer = { status: 500, type: 'text/plain', body: 'down' };
    const kept = await policyFor('recipient.test', lookup(t0 + 1000));
    assert.deepEqual([kept?.fetched, kept?.id, kept?.policy.mode], [false, 'two', 'testing']);
    // Past max_age (86400 s) with the host still failing: no policy at all.
    assert.equal(await policyFor('recipient.test', lookup(t0 + 86_400_000 + 1)), null);
  });

  it('refuses a redirect, a media type other than text/plain, and a certificate no trusted CA signed', async () => {
    const t0 = Date.UTC(2026, 10, 30);
    await db.db.deleteFrom('mta_sts_policies').execute();
    answer = { status: 301, type: 'text/plain', body: '', location: 'https://elsewhere.test/' };
    assert.equal(await policyFor('recipient.test', lookup(t0)), null);
    answer = { status: 200, type: 'text/html', body: POLICY };
    assert.equal(await policyFor('recipient.test', lookup(t0)), null);
    answer = { status: 200, type: 'text/plain; charset=utf-8', body: POLICY };
    assert.equal(await policyFor('recipient.test', lookup(t0, null)), null, 'the test CA is not a system root');
    assert.equal((await policyFor('recipient.test', lookup(t0)))?.policy.mode, 'enforce');
  });

  it('a domain without a _mta-sts record has no policy', async () => {
    assert.equal(await policyFor('plain.test', lookup(Date.now())), null);
  });
});
