// Which envelope recipients are a server's inbound mail: <InboundHash>[+<MailboxHash>]@<MAILROOM_INBOUND_DOMAIN>
// ("plus addressing": the part after '+' reaches the application as MailboxHash), or any address at a
// server's InboundDomain (a domain whose MX points at mailroom). Anything else is left to the bounce
// intake's own checks (recipients.ts).
import type { AppContext } from '../app-context.js';

export interface InboundMailbox {
  serverId: number;
  /** The envelope recipient as given (OriginalRecipient). */
  address: string;
  mailboxHash: string;
}

/** Splits "local+hash" at the first '+'. */
export function splitPlus(local: string): { base: string; hash: string } {
  const plus = local.indexOf('+');
  return plus < 0 ? { base: local, hash: '' } : { base: local.slice(0, plus), hash: local.slice(plus + 1) };
}

/** The server whose inbound mail `address` is, or null when it is not inbound mail. */
export async function findInboundMailbox(ctx: AppContext, address: string): Promise<InboundMailbox | null> {
  const a = address.trim();
  const at = a.lastIndexOf('@');
  if (at <= 0) return null;
  const local = a.slice(0, at);
  const domain = a.slice(at + 1).toLowerCase().replace(/\.$/, '');
  const { base, hash } = splitPlus(local);
  if (domain === ctx.config.inboundDomain) {
    const s = await ctx.db.selectFrom('servers').select('id').where('inbound_hash', '=', base.toLowerCase()).executeTakeFirst();
    return s ? { serverId: s.id, address: a, mailboxHash: hash } : null;
  }
  if (domain === ctx.config.returnPathDomain) return null;
  const s = await ctx.db.selectFrom('servers').select('id').where('inbound_domain', '=', domain).orderBy('id').limit(1).executeTakeFirst();
  return s ? { serverId: s.id, address: a, mailboxHash: hash } : null;
}
