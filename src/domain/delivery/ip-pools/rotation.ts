// Which of a pool's addresses the next connection leaves from: each in turn (round robin), per pool, among
// the addresses of the peer's family (a socket bound to an IPv4 address cannot reach an IPv6 peer). Turns
// are counted per new connection, not per message: a connection is reused for many messages.
import { isIP } from 'node:net';
import type { IpPool } from './parse.js';

/** The pool holds no address of the peer's family: this peer cannot be reached from it. */
export class NoSourceAddress extends Error {
  readonly code = 'EADDRNOTAVAIL';
}

export class SourceRotation {
  private readonly turns = new Map<string, number>();

  /** The local address for a new connection from `pool` to `host` (an address, or a relay's host name). */
  next(pool: IpPool, host: string): string {
    const family = isIP(host);
    const usable = family === 0 ? pool.addresses : pool.addresses.filter((a) => isIP(a) === family);
    if (usable.length === 0) throw new NoSourceAddress(`IP pool ${pool.name} has no IPv${family} address to reach ${host} from`);
    const key = `${pool.name}\n${family}`;
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, (turn + 1) % usable.length);
    return usable[turn % usable.length];
  }
}
