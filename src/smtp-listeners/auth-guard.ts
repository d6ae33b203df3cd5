// Failed AUTH on the submission listener. Without a limit a client could try token after token on one
// connection (each answered 535) and from as many connections as it likes. So a connection is closed at its
// MAX_FAILURES_PER_CONNECTION-th failure, and a client address (IPv6: its /64) with `maxPerClient` wrong tokens
// within 15 minutes is refused unchecked until older failures leave the window, as the console's sign-in is
// (domain/submission/auth-failures.ts; the count is in the database, so every API process sees it). Only a
// wrong token counts towards the address's limit: a valid token refused for another reason guesses nothing.
import type { SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../domain/app-context.js';
import { recentAuthFailures, recordAuthFailure } from '../domain/submission/auth-failures.js';
import { clientKey } from './client-key.js';
import type { SmtpReply } from './submission-replies.js';

export const MAX_FAILURES_PER_CONNECTION = 3;

export class AuthGuard {
  private readonly failures = new WeakMap<SMTPServerSession, number>();

  constructor(
    private readonly ctx: AppContext,
    private readonly maxPerClient: number,
  ) {}

  /** The refusal of an AUTH from a client over its limit (421: the connection closes), or null. */
  async refusal(session: SMTPServerSession): Promise<SmtpReply | null> {
    if (this.maxPerClient === 0) return null;
    const n = await recentAuthFailures(this.ctx.db, clientKey(session.remoteAddress), this.ctx.clock.now());
    if (n < this.maxPerClient) return null;
    return { code: 421, message: `4.7.0 Too many failed authentications from your address (${n} in 15 minutes); try again later` };
  }

  /** The reply to a failed AUTH: `refused` itself, or 421 (closing) at the connection's last allowed failure. */
  async failed(session: SMTPServerSession, refused: SmtpReply, wrongToken: boolean): Promise<SmtpReply> {
    if (wrongToken && this.maxPerClient > 0) await recordAuthFailure(this.ctx.db, clientKey(session.remoteAddress), this.ctx.clock.now());
    const n = (this.failures.get(session) ?? 0) + 1;
    this.failures.set(session, n);
    if (n < MAX_FAILURES_PER_CONNECTION) return refused;
    return { code: 421, message: `4.7.0 ${n} failed authentications on this connection, closing it: ${refused.message.replace(/^\d\.\d+\.\d+ /, '')}` };
  }
}
