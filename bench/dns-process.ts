// The loopback DNS server of bench/inbound in a child process (a real resolver runs elsewhere than the
// service, and its work must not count as the service's): answers the senders' SPF record.
import { startDnsServer } from '../test/helpers/dns-server.js';

const dns = await startDnsServer();
dns.set('customer.example', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' }]);
process.send!({ address: dns.address });
process.on('message', () => process.send!({ count: dns.queries.length }));
