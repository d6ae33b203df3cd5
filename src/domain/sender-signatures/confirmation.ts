// Confirmation of a sender signature: the owner of the address proves it by following a signed link that
// mailroom mails to it. The link carries the signature id, a per-signature nonce and an expiry, signed
// with the 'confirm' key (crypto/secrets.ts), so it can be neither forged nor reused for another signature.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import { SYSTEM_MAIL_QUEUE } from './system-mail-queue.js';

/** How long a confirmation link works; `resend` mails a fresh one. */
export const CONFIRM_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const newConfirmNonce = (): string => randomBytes(9).toString('base64url');

export interface ConfirmTarget {
  id: number;
  email: string;
  name: string;
  confirm_nonce: string;
  confirmation_personal_note: string;
}

export function confirmationLink(ctx: AppContext, sig: ConfirmTarget, now: number): string {
  const token = ctx.secrets.sign('confirm', `${sig.id}.${sig.confirm_nonce}.${now + CONFIRM_LINK_TTL_MS}`);
  return `${ctx.config.publicUrl}/senders/confirm/${token}`;
}

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function confirmationMail(ctx: AppContext, sig: ConfirmTarget, now: number): { to: string; subject: string; text: string; html: string } {
  const link = confirmationLink(ctx, sig, now);
  const note = sig.confirmation_personal_note.trim();
  const text = [
    `Someone asked to send email as ${sig.name ? `${sig.name} <${sig.email}>` : sig.email} through mailroom.`,
    ...(note ? ['', 'Their note:', note] : []),
    '',
    'If that was you or your team, confirm the address by opening this link:',
    link,
    '',
    'If not, ignore this message: nothing will be sent as you.',
  ].join('\n');
  const html = [
    `<p>Someone asked to send email as <b>${escapeHtml(sig.email)}</b> through mailroom.</p>`,
    ...(note ? [`<blockquote>${escapeHtml(note).replace(/\n/g, '<br>')}</blockquote>`] : []),
    `<p><a href="${escapeHtml(link)}">Confirm this sender signature</a></p>`,
    '<p>If that was not you, ignore this message: nothing will be sent as you.</p>',
  ].join('\n');
  return { to: sig.email, subject: `Confirm your sender signature ${sig.email}`, text, html };
}

/**
 * Queues the confirmation email inside the caller's transaction (it goes out only if that commits).
 * `countsTowardResendLimit` is false for the creation's own email: the hosted service lets a client create a
 * signature and resend at once, so only resends start the one-minute limit.
 */
export async function enqueueConfirmation(trx: Kysely<Database>, ctx: AppContext, sig: ConfirmTarget, now: number, countsTowardResendLimit = true): Promise<void> {
  await enqueueJobs(trx, [{ queue: SYSTEM_MAIL_QUEUE, payload: confirmationMail(ctx, sig, now), runAt: now }], now);
  if (countsTowardResendLimit) await trx.updateTable('sender_signatures').set({ confirmation_sent_at: now }).where('id', '=', sig.id).execute();
}

export type ConfirmOutcome = { kind: 'confirmed' | 'already'; email: string } | { kind: 'invalid' };

export type ConfirmClaim = { kind: 'valid'; id: number; email: string; name: string; confirmed: boolean } | { kind: 'invalid' };

/** Reads a confirmation link without acting on it (the page shown on GET). A forged, expired or stale link is invalid. */
export async function readConfirmToken(ctx: AppContext, token: string): Promise<ConfirmClaim> {
  const data = ctx.secrets.verify('confirm', token);
  const m = data ? /^(\d+)\.([A-Za-z0-9_-]+)\.(\d+)$/.exec(data) : null;
  if (!m) return { kind: 'invalid' };
  const [, id, nonce, expires] = m;
  if (Number(expires) < ctx.clock.now()) return { kind: 'invalid' };
  const sig = await ctx.db.selectFrom('sender_signatures').select(['id', 'email', 'name', 'confirmed', 'confirm_nonce']).where('id', '=', Number(id)).executeTakeFirst();
  if (!sig || sig.confirm_nonce !== nonce) return { kind: 'invalid' };
  return { kind: 'valid', id: sig.id, email: sig.email, name: sig.name, confirmed: sig.confirmed === 1 };
}

/**
 * Acts on a confirmation link (the page's POST: a mail gateway that pre-fetches links with GET confirms
 * nothing). A forged, expired or stale link changes nothing.
 */
export async function confirmByToken(ctx: AppContext, token: string): Promise<ConfirmOutcome> {
  const claim = await readConfirmToken(ctx, token);
  if (claim.kind === 'invalid') return claim;
  if (claim.confirmed) return { kind: 'already', email: claim.email };
  await ctx.db.updateTable('sender_signatures').set({ confirmed: 1, confirmed_at: ctx.clock.now() }).where('id', '=', claim.id).where('confirmed', '=', 0).execute();
  ctx.logger.info({ signatureId: claim.id }, 'sender signature confirmed');
  return { kind: 'confirmed', email: claim.email };
}
