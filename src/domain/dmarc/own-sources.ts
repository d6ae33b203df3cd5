// Which report sources are mailroom's own sending addresses, so that a summary can tell mail mailroom sent
// from mail others send as the domain. An address counts as own when it is:
// - a source address of MAILROOM_IP_POOLS (delivery binds its connections to them), or
// - an address of this host's interfaces (without pools the OS picks one of them), or
// - in MAILROOM_DMARC_OWN_SOURCES (IPs or CIDRs): the public address mailroom cannot see itself, behind
//   NAT or when it sends through MAILROOM_SMTP_RELAY (the relay's addresses are what receivers report).
// Several processes on several hosts: each answers from its own interfaces, so list the others' addresses
// in MAILROOM_DMARC_OWN_SOURCES (or use pools).
import { BlockList, isIP } from 'node:net';
import type { AppContext } from '../app-context.js';
import { isHostAddress } from '../../infra/net/address-guard.js';

export type OwnSources = (ip: string) => boolean;

function add(list: BlockList, entry: string): void {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (slash < 0) list.addAddress(address, family);
  else list.addSubnet(address, Number(entry.slice(slash + 1)), family);
}

export function ownSources(ctx: Pick<AppContext, 'config'>): OwnSources {
  const list = new BlockList();
  for (const pool of ctx.config.ipPools) for (const a of pool.addresses) add(list, a);
  for (const e of ctx.config.dmarc.ownSources) add(list, e);
  return (ip: string) => {
    const family = isIP(ip);
    if (!family) return false;
    return list.check(ip, family === 6 ? 'ipv6' : 'ipv4') || isHostAddress(ip);
  };
}
