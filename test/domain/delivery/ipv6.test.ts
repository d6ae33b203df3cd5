// Delivery over IPv6: an MX published with only an AAAA record is delivered to over IPv6, and an MX host
// whose address of one family refuses connections is reached over the other (targets.ts lists the A
// addresses, then the AAAA ones, and transport.ts moves to the next address when a connection fails,
// RFC 5321 5.1). Real peers on ::1 and 127.0.0.x, found through the loopback DNS server.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { eventsOf, send } from './helpers.js';
import { startThrottlingPeer, type ThrottlingPeer } from './pacing-peer.js';

const FROM = 'sender@example.com';

/** Why IPv6 on loopback cannot be tested here, or null when it can. */
async function noLoopbackV6(): Promise<string | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', (e: NodeJS.ErrnoException) => resolve(`cannot listen on ::1 (${e.code ?? e.message}): IPv6 is off on this machine`));
    srv.listen(0, '::1', () => srv.close(() => resolve(null)));
  });
}

const skip = await noLoopbackV6();

describe('delivery over IPv6', { skip: skip ?? false }, () => {
  let s: TestService;
  let dns: TestDnsServer;
  let v6: ThrottlingPeer;
  let v4: ThrottlingPeer;
  let closing: Promise<void> | null = null;
  before(async () => {
    v6 = await startThrottlingPeer('::1');
    v4 = await startThrottlingPeer('127.0.0.7', v6.port);
    dns = await startDnsServer();
    dns.set('v6only.example', [{ type: 'MX', exchange: 'mx.v6only.example', priority: 10 }]);
    dns.set('mx.v6only.example', [{ type: 'AAAA', address: '::1' }]);
    // Nothing listens on 127.0.0.8: the IPv4 address refuses, the IPv6 one takes the mail.
    dns.set('dual.example', [{ type: 'MX', exchange: 'mx.dual.example', priority: 10 }]);
    dns.set('mx.dual.example', [
      { type: 'A', address: '127.0.0.8' },
      { type: 'AAAA', address: '::1' },
    ]);
    // The preferred MX has only an IPv6 address, the next one only IPv4.
    dns.set('v6first.example', [
      { type: 'MX', exchange: 'mx1.v6first.example', priority: 10 },
      { type: 'MX', exchange: 'mx2.v6first.example', priority: 20 },
    ]);
    dns.set('mx1.v6first.example', [{ type: 'AAAA', address: '::1' }]);
    dns.set('mx2.v6first.example', [{ type: 'A', address: '127.0.0.7' }]);
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address }, config: { mxPort: v6.port } });
    await addConfirmedSender(s, FROM);
  });
  after(async () => {
    await s.close(); // closes the pooled connections, so that the peers' close need not wait for them
    await Promise.all([closing ?? v6.close(), v4.close(), dns.close()]);
  });

  const deliveredVia = async (id: string) => {
    const d = (await eventsOf(s, id)).find((e) => e.type === 'Delivered');
    assert.ok(d, 'delivered');
    return { server: d.details.DestinationServer as string, ip: d.details.DestinationIP as string };
  };

  it('delivers to an MX that has only an AAAA record', async () => {
    const id = await send(s, { From: FROM, To: 'someone@v6only.example', Subject: 'v6', TextBody: 'over IPv6' });
    await s.drain();
    assert.deepEqual(v6.accepted, ['someone@v6only.example']);
    assert.deepEqual(await deliveredVia(id), { server: 'mx.v6only.example', ip: '::1' });
  });

  it('falls back to the IPv6 address when the IPv4 one refuses', async () => {
    const id = await send(s, { From: FROM, To: 'someone@dual.example', Subject: 'dual', TextBody: 'v4 refused' });
    await s.drain();
    assert.ok(v6.accepted.includes('someone@dual.example'));
    assert.deepEqual(await deliveredVia(id), { server: 'mx.dual.example', ip: '::1' });
  });

  it('falls back to IPv4 when the IPv6 address refuses', async () => {
    // ::1 refuses new connections on the MX port from now on (the close completes once the pooled idle
    // connection to it times out; not waited for).
    closing = v6.close();
    const id = await send(s, { From: FROM, To: 'someone@v6first.example', Subject: 'v6 down', TextBody: 'v6 refused' });
    await s.drain();
    assert.deepEqual(v4.accepted, ['someone@v6first.example']);
    assert.deepEqual(await deliveredVia(id), { server: 'mx2.v6first.example', ip: '127.0.0.7' });
  });
});
