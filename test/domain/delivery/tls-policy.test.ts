// Outbound TLS policy end to end: MTA-STS (RFC 8461) found through the loopback DNS server, the policy served
// over HTTPS by a loopback server with the test CA's certificate, and MX hosts played by smtp-server on
// loopback addresses (127.0.0.1-3, one port: the MX port is shared) with a certificate from the test CA,
// a self-signed one, or no STARTTLS at all. What a sender sees: delivered or deferred with a 4.7.x reason,
// the TLS of each attempt in the message's events, and TLS-RPT-style counts in status and the metrics.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { formatStatus, statusReport } from '../../../src/domain/operations/status.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { addUsers, ADMIN, ConsoleClient } from '../../http/console/helpers.js';
import { eventsOf, recipientsOf, send } from './helpers.js';

const FROM = 'sender@example.com';
const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/tls/${name}`, import.meta.url));
const pem = (name: string) => readFileSync(fixture(name), 'utf8');

interface Mx {
  ip: string;
  /** Messages received, with whether they came over TLS. */
  received: Array<{ to: string; secure: boolean; tlsVersion: string | null }>;
  /** TCP connections accepted. */
  connections: number;
  server: SMTPServer;
}

/** An MX host on one loopback address: STARTTLS with the given certificate, or none when cert is null. */
async function startMx(ip: string, port: number, cert: { key: string; cert: string } | null): Promise<Mx> {
  const mx: Mx = { ip, received: [], connections: 0, server: null as unknown as SMTPServer };
  mx.server = new SMTPServer({
    secure: false,
    authOptional: true,
    logger: false,
    disabledCommands: cert ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(cert ?? {}),
    onConnect(_session, cb) {
      mx.connections++;
      cb();
    },
    onData(stream, session, cb) {
      stream.resume();
      stream.on('end', () => {
        const info = (session as unknown as { tlsOptions?: { version?: string } | false }).tlsOptions;
        for (const r of session.envelope.rcptTo) mx.received.push({ to: r.address, secure: session.secure, tlsVersion: info ? (info.version ?? null) : null });
        cb(null, '2.0.0 Ok: queued');
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    mx.server.server.once('error', reject);
    mx.server.listen(port, ip, () => resolve());
  });
  return mx;
}

const POLICIES: Record<string, string> = {
  'enforced.test': 'version: STSv1\r\nmode: enforce\r\nmx: mx.enforced.test\r\nmax_age: 86400\r\n',
  'recipient.test': 'version: STSv1\r\nmode: enforce\r\nmx: *.recipient.test\r\nmax_age: 86400\r\n',
  'testing.test': 'version: STSv1\r\nmode: testing\r\nmx: mx.testing.test\r\nmax_age: 86400\r\n',
};

describe('outbound TLS policy: MTA-STS and opportunistic STARTTLS', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let https: Server;
  let good: Mx; // 127.0.0.1: certificate of the test CA (mx.recipient.test, mx.enforced.test, mx.testing.test, ...)
  let selfSigned: Mx; // 127.0.0.2: a self-signed certificate (CN localhost), trusted by nobody
  let plain: Mx; // 127.0.0.3: no STARTTLS
  const policyFetches: string[] = [];
  /** TCP connections to the policy server (a handshake that fails never reaches the request handler). */
  let policyConnections = 0;
  let enforcedId = '';
  let testingId = '';

  before(async () => {
    dns = await startDnsServer();
    https = createServer({ key: pem('recipient.key'), cert: pem('recipient.crt') }, (req, res) => {
      const domain = String(req.headers.host ?? '').replace(/^mta-sts\./, '').replace(/:\d+$/, '');
      policyFetches.push(domain);
      const body = POLICIES[domain];
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/plain' });
      res.end(body ?? 'no policy');
    });
    https.on('connection', () => policyConnections++);
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
    good = await startMx('127.0.0.1', 0, { key: pem('recipient.key'), cert: pem('recipient.crt') });
    const port = (good.server.server.address() as AddressInfo).port;
    selfSigned = await startMx('127.0.0.2', port, { key: pem('localhost.key'), cert: pem('localhost.crt') });
    plain = await startMx('127.0.0.3', port, null);
    for (const domain of [...Object.keys(POLICIES), 'fetchfails.test']) {
      dns.set(`_mta-sts.${domain}`, [{ type: 'TXT', data: `v=STSv1; id=${domain.split('.')[0]}1;` }]);
      dns.set(`mta-sts.${domain}`, [{ type: 'A', address: '127.0.0.1' }]);
    }
    s = await startService({
      env: {
        MAILROOM_DNS_SERVERS: dns.address,
        MAILROOM_TLS_CA_FILE: fixture('test-ca.crt'),
      },
      config: { mxPort: port, mtaStsPort: (https.address() as AddressInfo).port },
    });
    await addConfirmedSender(s, FROM);
  });
  after(async () => {
    await s.close();
    for (const mx of [good, selfSigned, plain]) await new Promise<void>((r) => mx.server.close(() => r()));
    https.close();
    await dns.close();
  });

  /** Points a host name at one of the MX servers and makes it the domain's only MX. */
  const route = (domain: string, host: string, mx: Mx) => {
    dns.set(domain, [{ type: 'MX', exchange: host, priority: 10 }]);
    dns.set(host, [{ type: 'A', address: mx.ip }]);
  };
  const deliver = async (to: string) => {
    const id = await send(s, { From: FROM, To: to, Subject: 'tls', TextBody: 'hello' });
    await s.drain();
    const [r] = await recipientsOf(s, id);
    const events = await eventsOf(s, id);
    return { id, status: r.status, event: events.find((e) => e.type === 'Delivered' || e.type === 'Transient')! };
  };

  it('enforce and a certificate of a trusted CA naming the MX: delivered over TLS, recorded as verified', async () => {
    route('enforced.test', 'mx.enforced.test', good);
    const { id, status, event } = await deliver('a@enforced.test');
    enforcedId = id;
    assert.equal(status, 'Sent');
    assert.deepEqual(good.received.at(-1), { to: 'a@enforced.test', secure: true, tlsVersion: 'TLSv1.3' });
    assert.equal(event.type, 'Delivered');
    assert.equal(event.details.TLS.Used, true);
    assert.equal(event.details.TLS.Version, 'TLSv1.3');
    assert.match(event.details.TLS.Cipher, /^TLS_/);
    assert.equal(event.details.TLS.CertificateVerified, true);
    assert.equal(event.details.TLS.MTASTSMode, 'enforce');
    assert.equal(event.details.TLS.Result, 'success');
    assert.ok(policyFetches.includes('enforced.test'), 'the policy was fetched over HTTPS');
    // The message details of the API carry the hosted service's Delivered details only (every value a
    // string, as its clients validate); the TLS record stays in the stored event, for the console's timeline.
    const d = await s.request('GET', `/messages/outbound/${id}/details`);
    assert.equal(d.status, 200, d.text);
    const delivered = d.body.MessageEvents.find((e: { Type: string }) => e.Type === 'Delivered');
    assert.equal(delivered.Details.DestinationServer, 'mx.enforced.test');
    assert.match(delivered.Details.DeliveryMessage, /^smtp;250 /);
    assert.deepEqual(Object.keys(delivered.Details).sort(), ['DeliveryMessage', 'DestinationIP', 'DestinationServer']);
  });

  it('enforce and an MX host the policy does not list: deferred with 4.7.5, the host never contacted', async () => {
    // The policy stays cached (same id): only the MX record changes, to a host served by the same machine.
    route('enforced.test', 'mx.elsewhere.test', good);
    const connections = good.connections;
    const fetches = policyFetches.length;
    const { status, event } = await deliver('b@enforced.test');
    assert.equal(status, 'Transient');
    assert.equal(event.type, 'Transient');
    assert.match(event.details.DeliveryMessage, /^smtp;451 4\.7\.5 MTA-STS policy of enforced\.test \(enforce\) lists none of its MX hosts \(mx\.elsewhere\.test\)/);
    assert.equal(event.details.TLS.Result, 'validation-failure');
    assert.equal(good.connections, connections, 'no connection was made');
    assert.equal(policyFetches.length, fetches, 'the cached policy was used, not fetched again');
  });

  it('enforce and a certificate no trusted CA signed: deferred with 4.7.5 (certificate-not-trusted), never sent in plaintext', async () => {
    route('recipient.test', 'mx.recipient.test', selfSigned);
    const { status, event } = await deliver('c@recipient.test');
    assert.equal(status, 'Transient');
    assert.match(event.details.DeliveryMessage, /^smtp;451 4\.7\.5 the certificate of mx\.recipient\.test did not verify \(certificate-not-trusted/);
    assert.equal(event.details.TLS.Result, 'certificate-not-trusted');
    assert.equal(event.details.TLS.MTASTSMode, 'enforce');
    assert.equal(event.details.TLS.CertificateVerified, false);
    assert.equal(selfSigned.received.length, 0);
  });

  it('enforce and a trusted certificate for another name: deferred (certificate-host-mismatch)', async () => {
    // *.recipient.test lists mx3.recipient.test, but the certificate names mx and mx2 only.
    route('recipient.test', 'mx3.recipient.test', good);
    const before = good.received.length;
    const { status, event } = await deliver('d@recipient.test');
    assert.equal(status, 'Transient');
    assert.match(event.details.DeliveryMessage, /^smtp;451 4\.7\.5 .*certificate-host-mismatch/);
    assert.equal(event.details.TLS.Result, 'certificate-host-mismatch');
    assert.equal(good.received.length, before);
  });

  it('enforce and an MX that offers no STARTTLS: deferred with 4.7.4, no plaintext fallback', async () => {
    route('recipient.test', 'mx2.recipient.test', plain);
    const { status, event } = await deliver('e@recipient.test');
    assert.equal(status, 'Transient');
    assert.match(event.details.DeliveryMessage, /^smtp;451 4\.7\.4 TLS is required by the MTA-STS policy, but was not offered by the host/);
    assert.equal(event.details.TLS.Result, 'starttls-not-supported');
    assert.equal(plain.received.length, 0, 'nothing went out in plaintext');
  });

  it('testing mode and an untrusted certificate: delivered, the would-be failure recorded', async () => {
    route('testing.test', 'mx.testing.test', selfSigned);
    const { id, status, event } = await deliver('f@testing.test');
    testingId = id;
    assert.equal(status, 'Sent');
    assert.equal(selfSigned.received.at(-1)?.to, 'f@testing.test');
    assert.equal(event.type, 'Delivered');
    assert.equal(event.details.TLS.Used, true);
    assert.equal(event.details.TLS.CertificateVerified, false);
    assert.equal(event.details.TLS.MTASTSMode, 'testing');
    assert.equal(event.details.TLS.Result, 'certificate-not-trusted');
  });

  it('no policy: opportunistic STARTTLS when offered (certificate checked, not required), plaintext otherwise', async () => {
    route('plain.test', 'mx.plain.test', good);
    let r = await deliver('g@plain.test');
    assert.equal(r.status, 'Sent');
    assert.equal(good.received.at(-1)?.secure, true);
    assert.equal(r.event.details.TLS.Used, true);
    assert.equal(r.event.details.TLS.CertificateVerified, false, 'the certificate does not name mx.plain.test');
    assert.equal(r.event.details.TLS.CertificateError, 'ERR_TLS_CERT_ALTNAME_INVALID');
    assert.equal(r.event.details.TLS.MTASTSMode, 'none');
    assert.equal(r.event.details.TLS.Result, 'success');

    route('plain.test', 'mx.plain.test', plain);
    r = await deliver('h@plain.test');
    assert.equal(r.status, 'Sent');
    assert.deepEqual(plain.received.at(-1), { to: 'h@plain.test', secure: false, tlsVersion: null });
    assert.equal(r.event.details.TLS.Used, false);
    assert.equal(r.event.details.TLS.Result, 'starttls-not-supported');
  });

  it('a published policy that cannot be fetched: delivered as without one, counted as sts-policy-fetch-error', async () => {
    route('fetchfails.test', 'mx.fetchfails.test', good);
    const { status, event } = await deliver('i@fetchfails.test');
    assert.equal(status, 'Sent');
    assert.equal(event.details.TLS.MTASTSMode, 'none');
    assert.equal(event.details.TLS.Result, 'sts-policy-fetch-error');
  });

  it('counts results per destination in `mailroom status` and per result type in the metrics', async () => {
    const report = await statusReport(s.ctx);
    const by = Object.fromEntries(report.tls.map((d) => [d.domain, d]));
    assert.equal(by['enforced.test'].success, 1);
    assert.deepEqual(by['enforced.test'].failures, { 'validation-failure': 1 });
    assert.equal(by['recipient.test'].mode, 'enforce');
    assert.deepEqual(by['recipient.test'].failures, { 'certificate-not-trusted': 1, 'certificate-host-mismatch': 1, 'starttls-not-supported': 1 });
    assert.deepEqual(by['testing.test'].failures, { 'certificate-not-trusted': 1 });
    assert.equal(by['plain.test'].success, 1);
    assert.equal(by['plain.test'].plaintext, 1);
    assert.deepEqual(by['fetchfails.test'].failures, { 'sts-policy-fetch-error': 1 });
    const text = formatStatus(report);
    assert.match(text, /recipient\.test \[enforce\]: success 0; failures: .*certificate-not-trusted 1/);
    assert.match(text, /enforced\.test \[enforce\]: success 1; failures: validation-failure 1/);

    const metrics = await s.ctx.metrics.registry.getSingleMetricAsString('mailroom_delivery_tls_total');
    const count = (result: string, policy: string) => Number(new RegExp(`mailroom_delivery_tls_total\\{result="${result}",policy="${policy}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    assert.equal(count('success', 'enforce'), 1);
    assert.equal(count('certificate-not-trusted', 'enforce'), 1);
    assert.equal(count('certificate-host-mismatch', 'enforce'), 1);
    assert.equal(count('starttls-not-supported', 'enforce'), 1);
    assert.equal(count('validation-failure', 'enforce'), 1);
    assert.equal(count('certificate-not-trusted', 'testing'), 1);
    assert.equal(count('sts-policy-fetch-error', 'none'), 1);
    assert.doesNotMatch(metrics, /domain=/, 'no unbounded domain label');
  });

  it('shows each attempt’s TLS in words on the console’s message timeline', async () => {
    await addUsers(s);
    const c = new ConsoleClient(s);
    await c.signIn(ADMIN);
    const enforced = await c.get(`/console/s/${s.serverId}/messages/${enforcedId}`);
    assert.equal(enforced.status, 200);
    assert.match(enforced.text, /<dt>TLS<\/dt><dd>TLSv1\.3 \(TLS_[A-Z0-9_]+\), certificate verified; MTA-STS enforce<\/dd>/);
    const testing = await c.get(`/console/s/${s.serverId}/messages/${testingId}`);
    assert.match(testing.text, /certificate not verified \(DEPTH_ZERO_SELF_SIGNED_CERT\); MTA-STS testing: certificate-not-trusted/);
  });

  it('does not ask a failing policy host again for every message, only after a pause', async () => {
    const asked = policyConnections;
    let r = await deliver('j@fetchfails.test');
    assert.equal(r.status, 'Sent');
    assert.equal(r.event.details.TLS.Result, 'sts-policy-fetch-error', 'still reported');
    assert.equal(policyConnections, asked, 'no new request within five minutes of the failure');
    s.clock.advance(5 * 60_000 + 1);
    r = await deliver('k@fetchfails.test');
    assert.equal(r.event.details.TLS.Result, 'sts-policy-fetch-error');
    assert.equal(policyConnections, asked + 1, 'asked again after the pause');
  });
});
