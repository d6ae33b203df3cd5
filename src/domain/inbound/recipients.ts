// Which envelope recipients the bounce listener takes mail for. Only signed VERP addresses (mail/verp.ts)
// at the return-path domain or at a verified custom Return-Path domain: everything else is refused at RCPT
// time, so the listener is no open relay and no spam trap, and nobody can forge a bounce that suppresses
// an arbitrary recipient (the signature covers message and recipient).
// One more address, fbl@<return-path domain>, is the address to register with mailbox providers' feedback
// loops (their complaint reports go to a fixed address, not to the Return-Path): reports there are tied
// back by the Message-ID of the attached original, and only complaints are taken from it.
import type { AppContext } from '../app-context.js';
import { decodeVerp, type VerpTarget } from '../../infra/mime/verp.js';

/** A VERP target, or for the feedback-loop address a target to be found from the report itself. */
export type InboundTarget = { address: string; verp: VerpTarget | null };

export const FBL_LOCAL_PART = 'fbl';

export type RcptCheck = { ok: true; target: InboundTarget } | { ok: false; code: number; message: string };

export async function isReturnPathDomain(ctx: AppContext, domain: string): Promise<boolean> {
  if (domain === ctx.config.returnPathDomain) return true;
  const dom = await ctx.db.selectFrom('domains').select('id').where('return_path_domain', '=', domain).where('return_path_verified', '=', 1).limit(1).executeTakeFirst();
  if (dom) return true;
  const sig = await ctx.db
    .selectFrom('sender_signatures')
    .select('id')
    .where('return_path_domain', '=', domain)
    .where('return_path_verified', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return !!sig;
}

export async function checkRecipient(ctx: AppContext, address: string): Promise<RcptCheck> {
  const a = address.trim();
  const at = a.lastIndexOf('@');
  if (at <= 0 || a.length > 254) return { ok: false, code: 553, message: '5.1.3 Bad recipient address syntax' };
  const domain = a.slice(at + 1).toLowerCase().replace(/\.$/, '');
  const refused: RcptCheck = { ok: false, code: 550, message: '5.1.1 No such mailbox: this server only takes bounces for the messages it sent' };
  if (a.slice(0, at).toLowerCase() === FBL_LOCAL_PART) {
    return domain === ctx.config.returnPathDomain ? { ok: true, target: { address: a.toLowerCase(), verp: null } } : refused;
  }
  const verp = decodeVerp(ctx.secrets, a);
  if (!verp || !(await isReturnPathDomain(ctx, domain))) return refused;
  return { ok: true, target: { address: a.toLowerCase(), verp } };
}
