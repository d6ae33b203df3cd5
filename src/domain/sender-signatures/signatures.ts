// Sender signatures of an account (docs/reference/sender-signatures.md). A signature belongs to the
// account's domain row for its address (created with its first DKIM key when missing); its DKIM and SPF
// state is the domain's. Every query is scoped to the caller's account.
import type { Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { generateDkimKey, type NewKey } from '../../infra/dkim/keys.js';
import { insertDomain } from '../domains/domains.js';
import { parseReturnPathDomain, refreshSignatureReturnPath } from '../domains/return-path.js';
import { ApiError, ErrorCode } from '../errors.js';
import { enqueueConfirmation, newConfirmNonce } from './confirmation.js';
import { parseSignatureInput, type SignatureInput } from './fields.js';

export type SignatureRow = Selectable<Database['sender_signatures']>;

export async function getSignature(ctx: AppContext, accountId: number, id: number): Promise<SignatureRow> {
  const row = await ctx.db.selectFrom('sender_signatures').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  if (!row) throw new ApiError(ErrorCode.SignatureNotFound, 'Sender signature not found.');
  return row;
}

export async function listSignatures(ctx: AppContext, accountId: number, count: number, offset: number) {
  const total = await ctx.db
    .selectFrom('sender_signatures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const rows = await ctx.db
    .selectFrom('sender_signatures')
    .innerJoin('domains', 'domains.id', 'sender_signatures.domain_id')
    .select(['sender_signatures.id', 'sender_signatures.email', 'sender_signatures.name', 'sender_signatures.reply_to', 'sender_signatures.confirmed', 'domains.name as domain'])
    .where('sender_signatures.account_id', '=', accountId)
    .orderBy('sender_signatures.id')
    .limit(count)
    .offset(offset)
    .execute();
  return { total: Number(total.n), rows };
}

/** `confirmed`: the operator vouches for the address (`mailroom sender add --confirmed`): stored confirmed, in
 * the same transaction, and no confirmation mail is queued (a worker could otherwise send it before a later
 * cancel). */
export async function createSignature(ctx: AppContext, accountId: number, body: SignatureInput, o: { confirmed?: boolean } = {}): Promise<SignatureRow> {
  const p = parseSignatureInput(body, true);
  const email = p.email!;
  const domain = p.domain!;
  const returnPath = p.returnPath ? parseReturnPathDomain(p.returnPath, domain, ErrorCode.SignatureFieldInvalid) : '';
  const exists = () => new ApiError(ErrorCode.SignatureExists, `A sender signature for ${email} already exists.`);
  const clash = await ctx.db.selectFrom('sender_signatures').select('id').where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();
  if (clash) throw exists();
  const hasDomain = await ctx.db.selectFrom('domains').select('id').where('account_id', '=', accountId).where('name', '=', domain).executeTakeFirst();
  // Key generation is slow CPU work: do it before the transaction, only when the domain is new.
  let key: NewKey | null = hasDomain ? null : await generateDkimKey(ctx.clock.now());
  let id: number;
  try {
    id = await ctx.db.transaction().execute(async (trx) => {
      const now = ctx.clock.now();
      let domainId = (await trx.selectFrom('domains').select('id').where('account_id', '=', accountId).where('name', '=', domain).executeTakeFirst())?.id;
      if (domainId === undefined) {
        key ??= await generateDkimKey(now); // the domain was deleted since the check above
        domainId = await insertDomain(trx, ctx, accountId, domain, key);
      }
      const sig = await trx
        .insertInto('sender_signatures')
        .values({
          account_id: accountId,
          domain_id: domainId,
          email,
          name: p.name,
          reply_to: p.replyTo ?? '',
          confirmation_personal_note: p.note ?? '',
          return_path_domain: returnPath,
          confirm_nonce: newConfirmNonce(),
          created_at: now,
          ...(o.confirmed ? { confirmed: 1, confirmed_at: now } : {}),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (!o.confirmed) await enqueueConfirmation(trx, ctx, sig, now, false);
      return sig.id;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
  ctx.runner.wake();
  if (returnPath) await refreshSignatureReturnPath(ctx, { id, return_path_domain: returnPath });
  return getSignature(ctx, accountId, id);
}

export async function updateSignature(ctx: AppContext, accountId: number, id: number, body: SignatureInput): Promise<SignatureRow> {
  const sig = await getSignature(ctx, accountId, id);
  const p = parseSignatureInput(body, false);
  const domain = sig.email.slice(sig.email.lastIndexOf('@') + 1);
  const returnPath = p.returnPath === undefined ? undefined : parseReturnPathDomain(p.returnPath, domain, ErrorCode.SignatureFieldInvalid);
  const rpChanged = returnPath !== undefined && returnPath !== sig.return_path_domain;
  await ctx.db
    .updateTable('sender_signatures')
    .set({
      name: p.name,
      ...(p.replyTo !== undefined ? { reply_to: p.replyTo } : {}),
      ...(p.note !== undefined ? { confirmation_personal_note: p.note } : {}),
      ...(rpChanged ? { return_path_domain: returnPath, return_path_verified: 0, return_path_checked_at: null } : {}),
    })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
  if (rpChanged && returnPath) await refreshSignatureReturnPath(ctx, { id, return_path_domain: returnPath });
  return getSignature(ctx, accountId, id);
}

export async function deleteSignature(ctx: AppContext, accountId: number, id: number): Promise<string> {
  const sig = await getSignature(ctx, accountId, id);
  await ctx.db.deleteFrom('sender_signatures').where('id', '=', id).where('account_id', '=', accountId).execute();
  return sig.email;
}

/** At most one confirmation email a minute per signature: resend must not become a way to flood a stranger. */
export const RESEND_INTERVAL_MS = 60_000;

/** POST resend: a new confirmation email; 506 once confirmed, 429 within a minute of the previous resend. */
export async function resendConfirmation(ctx: AppContext, accountId: number, id: number): Promise<SignatureRow> {
  const sig = await getSignature(ctx, accountId, id);
  if (sig.confirmed === 1) throw new ApiError(ErrorCode.SignatureAlreadyConfirmed, `The sender signature ${sig.email} is already confirmed.`);
  const since = ctx.clock.now() - (sig.confirmation_sent_at ?? 0);
  if (since < RESEND_INTERVAL_MS) {
    throw new ApiError(ErrorCode.RateLimited, `A confirmation email was sent to ${sig.email} ${Math.floor(since / 1000)} seconds ago; try again in a minute.`);
  }
  await ctx.db.transaction().execute((trx) => enqueueConfirmation(trx, ctx, sig, ctx.clock.now()));
  ctx.runner.wake();
  return sig;
}
