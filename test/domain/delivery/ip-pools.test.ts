// IP pools (issue 19, item 4): a server's mail leaves from its pool's address and greets with the pool's EHLO
// name, a stream's pool overrides its server's, a server without one sends from the default address, and a
// connection bound to one pool never carries another pool's mail. Loopback aliases stand in for a machine's
// public addresses: Linux routes all of 127.0.0.0/8 to lo, so 127.0.0.2..5 need no setup. The sink is a
// real SMTP server on 127.0.0.1 that records each connection's remote address and EHLO name; the MX of the
// destination is found through the loopback DNS server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { staleAssignments } from '../../../src/domain/delivery/ip-pools/check.js';
import { deliveryOptions } from '../../../src/domain/delivery/options.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { addUsers, ConsoleClient, VIEWER } from '../../http/console/helpers.js';
import { eventsOf } from './helpers.js';

const FROM = 'sender@example.com';
const POOLS = JSON.stringify([
  { name: 'pool-a', addresses: ['127.0.0.2'], ehlo: 'mta-a.example.test' },
  { name: 'pool-b', addresses: ['127.0.0.3'], ehlo: 'mta-b.example.test' },
  { name: 'pool-c', addresses: ['127.0.0.4', '127.0.0.5'] },
]);

describe('IP pools', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  /** Remote address of every connection the sink accepted, in order. */
  const connections: string[] = [];
  let x: { id: number; token: string };
  let defaultEhlo: string;

  const as = (token: string) => ({ token });
  async function sendAs(token: string, body: Record<string, unknown>): Promise<string> {
    const r = await s.request('POST', '/email', { token, body });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  }
  const account = () => ({ accountToken: s.accountToken });
  /** Sends one message, runs the queue, and returns how the sink saw it arrive. */
  async function deliver(token: string, stream?: string) {
    const before = sink.messages.length;
    const id = await sendAs(token, {
      From: FROM,
      To: 'someone@dest.example',
      Subject: 'pools',
      TextBody: 'hello',
      ...(stream ? { MessageStream: stream } : {}),
    });
    await s.drain();
    const got = sink.messages.slice(before);
    assert.equal(got.length, 1, 'one message arrived');
    assert.ok((await eventsOf(s, id)).some((e) => e.type === 'Delivered'));
    return { address: got[0].remoteAddress.replace(/^::ffff:/, ''), ehlo: got[0].ehlo };
  }

  before(async () => {
    sink = await startSmtpSink({
      options: {
        onConnect(session, cb) {
          connections.push(session.remoteAddress.replace(/^::ffff:/, ''));
          cb();
        },
      },
    });
    dns = await startDnsServer();
    dns.set('dest.example', [{ type: 'MX', exchange: 'mx.dest.example', priority: 10 }]);
    dns.set('mx.dest.example', [{ type: 'A', address: '127.0.0.1' }]);
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_IP_POOLS: POOLS }, config: { mxPort: sink.port } });
    defaultEhlo = deliveryOptions(s.config).ehloName;
    await addConfirmedSender(s, FROM);
    // Server X on pool A (named in another case: names match without regard to case).
    const r = await s.request('POST', '/servers', { ...account(), body: { Name: 'X', IpPool: 'POOL-A' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.IpPool, 'pool-a');
    x = { id: r.body.ID, token: r.body.ApiTokens[0] };
    // A broadcast stream of X on pool B.
    const st = await s.request('POST', '/message-streams', { ...as(x.token), body: { ID: 'bulk', Name: 'Bulk', MessageStreamType: 'Broadcasts', IpPool: 'pool-b' } });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.body.IpPool, 'pool-b');
  });
  after(async () => {
    await s.close();
    await sink.close();
    await dns.close();
  });

  it('shows the settings in GET /server, GET /servers/{id} and the stream records', async () => {
    assert.equal((await s.request('GET', '/server', as(x.token))).body.IpPool, 'pool-a');
    assert.equal((await s.request('GET', `/servers/${x.id}`, account())).body.IpPool, 'pool-a');
    assert.equal((await s.request('GET', '/server')).body.IpPool, null, 'the default server has no pool');
    assert.equal((await s.request('GET', '/message-streams/bulk', as(x.token))).body.IpPool, 'pool-b');
    assert.equal((await s.request('GET', '/message-streams/outbound', as(x.token))).body.IpPool, null, "a stream without a pool shows null (its server's applies)");
    const list = (await s.request('GET', '/message-streams', as(x.token))).body.MessageStreams as Array<{ ID: string; IpPool: string | null }>;
    assert.equal(list.find((m) => m.ID === 'bulk')?.IpPool, 'pool-b');
  });

  it("shows a server's pool, read-only, on the console's Servers page", async () => {
    await addUsers(s);
    const c = new ConsoleClient(s);
    assert.equal((await c.signIn(VIEWER)).status, 303);
    const page = await c.get('/console/servers');
    assert.equal(page.status, 200);
    const section = (id: number) => page.text.slice(page.text.indexOf(`id="server-${id}"`)).split('</section>')[0];
    assert.match(section(x.id), /Sends from IP pool <code>pool-a<\/code>/);
    assert.doesNotMatch(section(s.serverId), /IP pool/);
  });

  it("sends each server's and stream's mail from its pool with its EHLO name, and never mixes pools on one connection", async () => {
    const first = connections.length;
    // Interleaved, so that an idle connection of one pool is there to be (wrongly) picked up by the next.
    const a1 = await deliver(x.token);
    const none1 = await deliver(s.serverToken);
    const b1 = await deliver(x.token, 'bulk');
    const a2 = await deliver(x.token);
    const none2 = await deliver(s.serverToken);
    const b2 = await deliver(x.token, 'bulk');
    for (const a of [a1, a2]) assert.deepEqual(a, { address: '127.0.0.2', ehlo: 'mta-a.example.test' });
    for (const b of [b1, b2]) assert.deepEqual(b, { address: '127.0.0.3', ehlo: 'mta-b.example.test' });
    for (const n of [none1, none2]) assert.deepEqual(n, { address: '127.0.0.1', ehlo: defaultEhlo });
    // One connection per pool, each reused for that pool's second message.
    assert.deepEqual(connections.slice(first), ['127.0.0.2', '127.0.0.1', '127.0.0.3']);
  });

  it("takes a pool's addresses in turn, with the service's EHLO name when the pool names none", async () => {
    const r = await s.request('POST', '/servers', { ...account(), body: { Name: 'Two addresses', IpPool: 'pool-c' } });
    assert.equal(r.status, 200, r.text);
    const token = r.body.ApiTokens[0];
    const first = connections.length;
    // Two messages delivered at once need two connections: one from each address.
    const before = sink.messages.length;
    for (const n of [1, 2]) await sendAs(token, { From: FROM, To: `c${n}@dest.example`, Subject: 'c', TextBody: 'c' });
    await s.drain();
    const got = sink.messages.slice(before);
    assert.deepEqual(got.map((m) => m.remoteAddress).sort(), ['127.0.0.4', '127.0.0.5']);
    assert.deepEqual(connections.slice(first).sort(), ['127.0.0.4', '127.0.0.5']);
    for (const m of got) assert.equal(m.ehlo, defaultEhlo);
  });

  it("a stream without a pool follows its server's; clearing the stream's pool brings the server's back", async () => {
    const p = await s.request('PATCH', '/message-streams/bulk', { ...as(x.token), body: { IpPool: '' } });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.IpPool, null);
    assert.deepEqual(await deliver(x.token, 'bulk'), { address: '127.0.0.2', ehlo: 'mta-a.example.test' });
    // null is "not given" (the API's convention): nothing changes.
    const q = await s.request('PATCH', '/message-streams/bulk', { ...as(x.token), body: { IpPool: null, Name: 'Bulk mail' } });
    assert.equal(q.status, 200, q.text);
    assert.equal(q.body.IpPool, null);
    const back = await s.request('PATCH', '/message-streams/bulk', { ...as(x.token), body: { IpPool: 'pool-b' } });
    assert.equal(back.body.IpPool, 'pool-b');
    assert.deepEqual(await deliver(x.token, 'bulk'), { address: '127.0.0.3', ehlo: 'mta-b.example.test' });
  });

  it('refuses an unknown pool with 422 and the configured names, and changes nothing', async () => {
    const unknown = (r: { status: number; body: { ErrorCode: number; Message: string } }) => {
      assert.equal(r.status, 422);
      assert.equal(r.body.ErrorCode, 403);
      assert.match(r.body.Message, /IpPool 'nope' is not configured; the pools are: pool-a, pool-b, pool-c/);
    };
    unknown(await s.request('PUT', '/server', { ...as(x.token), body: { IpPool: 'nope', Name: 'Renamed' } }));
    unknown(await s.request('PUT', `/servers/${x.id}`, { ...account(), body: { IpPool: 'nope' } }));
    unknown(await s.request('POST', '/servers', { ...account(), body: { Name: 'Never made', IpPool: 'nope' } }));
    unknown(await s.request('PATCH', '/message-streams/bulk', { ...as(x.token), body: { IpPool: 'nope' } }));
    unknown(await s.request('POST', '/message-streams', { ...as(x.token), body: { ID: 'never', Name: 'Never', MessageStreamType: 'Transactional', IpPool: 'nope' } }));
    const wrongType = await s.request('PUT', '/server', { ...as(x.token), body: { IpPool: 7 } });
    assert.equal(wrongType.status, 422);
    const inbound = await s.request('PATCH', '/message-streams/inbound', { ...as(x.token), body: { IpPool: 'pool-a' } });
    assert.equal(inbound.status, 422);
    assert.match(inbound.body.Message, /Inbound stream only receives/);

    const server = (await s.request('GET', '/server', as(x.token))).body;
    assert.equal(server.Name, 'X');
    assert.equal(server.IpPool, 'pool-a');
    assert.equal((await s.request('GET', '/servers?count=50&offset=0&name=Never', account())).body.TotalCount, 0);
    assert.equal((await s.request('GET', '/message-streams/never', as(x.token))).status, 422);
    assert.equal((await s.request('GET', '/message-streams/bulk', as(x.token))).body.IpPool, 'pool-b');
  });

  it('clears a server pool with "" and then sends from the default address', async () => {
    const r = await s.request('POST', '/servers', { ...account(), body: { Name: 'Cleared', IpPool: 'pool-a' } });
    const token = r.body.ApiTokens[0];
    const put = await s.request('PUT', '/server', { ...as(token), body: { IpPool: '' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.IpPool, null);
    assert.deepEqual(await deliver(token), { address: '127.0.0.1', ehlo: defaultEhlo });
  });

  it('a pool name no longer configured sends from the default address and is named at worker start', async () => {
    // The setting changed after the name was assigned: written past the API, which would refuse it.
    const r = await s.request('POST', '/servers', { ...account(), body: { Name: 'Stale' } });
    await s.ctx.db.updateTable('servers').set({ ip_pool: 'retired' }).where('id', '=', r.body.ID).execute();
    assert.equal((await s.request('GET', '/server', as(r.body.ApiTokens[0]))).body.IpPool, 'retired');
    assert.deepEqual(await deliver(r.body.ApiTokens[0]), { address: '127.0.0.1', ehlo: defaultEhlo });
    assert.deepEqual(await staleAssignments(s.ctx), [`server ${r.body.ID} (retired)`]);
  });
});
