// A real DNS server on loopback for tests (dns2, UDP). Records are kept in a map the test edits at will;
// point MAILROOM_DNS_SERVERS at `server.address` (e.g. "127.0.0.1:53123").
import dns2 from 'dns2';

const { Packet } = dns2 as any;

export type DnsRecord =
  | { type: 'A'; address: string }
  | { type: 'AAAA'; address: string }
  | { type: 'MX'; exchange: string; priority: number }
  | { type: 'TXT'; data: string | string[] }
  | { type: 'CNAME'; domain: string };

export interface TestDnsServer {
  /** "127.0.0.1:<port>" for MAILROOM_DNS_SERVERS. */
  address: string;
  port: number;
  /** Replaces the records of one type at a name. */
  set(name: string, records: DnsRecord[]): void;
  /** Adds records at a name. */
  add(name: string, ...records: DnsRecord[]): void;
  remove(name: string, type?: DnsRecord['type']): void;
  /** Names queried so far (lowercased), for assertions. */
  queries: string[];
  close(): Promise<void>;
}

/** TXT strings longer than 255 octets must be split into several character-strings (RFC 1035 3.3.14). */
function splitTxt(data: string | string[]): string[] {
  const parts = Array.isArray(data) ? data : [data];
  return parts.flatMap((s) => {
    const out: string[] = [];
    for (let i = 0; i < s.length; i += 255) out.push(s.slice(i, i + 255));
    return out.length ? out : [''];
  });
}

/** `at`: where to listen (default 127.0.0.1 on a free port); a fixed :53 serves tools that read resolv.conf. */
export async function startDnsServer(at: { address?: string; port?: number } = {}): Promise<TestDnsServer> {
  const zone = new Map<string, DnsRecord[]>();
  const queries: string[] = [];
  const key = (n: string) => n.toLowerCase().replace(/\.$/, '');
  const server = dns2.createServer({
    udp: true,
    handle: (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      const name = key(q.name);
      queries.push(name);
      const records: DnsRecord[] = zone.get(name) ?? [];
      for (const r of records) {
        const type = Packet.TYPE[r.type];
        // CNAME answers any question for the name (RFC 1034 3.6.2).
        if (type !== q.type && r.type !== 'CNAME') continue;
        const base = { name: q.name, type, class: Packet.CLASS.IN, ttl: 1 };
        if (r.type === 'TXT') response.answers.push({ ...base, data: splitTxt(r.data) });
        else response.answers.push({ ...base, ...r, type });
      }
      if (records.length === 0) response.header.rcode = 3; // NXDOMAIN
      send(response);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.on('listening', () => resolve());
    server.listen({ udp: { port: at.port ?? 0, address: at.address ?? '127.0.0.1' } }).catch(reject);
  });
  const port: number = (server.addresses() as any).udp.port;
  return {
    address: `${at.address ?? '127.0.0.1'}:${port}`,
    port,
    queries,
    set(name, records) {
      const types = new Set(records.map((r) => r.type));
      const kept = (zone.get(key(name)) ?? []).filter((r) => !types.has(r.type));
      zone.set(key(name), [...kept, ...records]);
    },
    add(name, ...records) {
      zone.set(key(name), [...(zone.get(key(name)) ?? []), ...records]);
    },
    remove(name, type) {
      if (!type) zone.delete(key(name));
      else zone.set(key(name), (zone.get(key(name)) ?? []).filter((r) => r.type !== type));
    },
    close: () => server.close(),
  };
}
