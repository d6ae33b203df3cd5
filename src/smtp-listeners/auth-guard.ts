// Failed AUTH on the submission listener. Without a limit a client could try token after token on one
// connection (each answered 535) and from as many connections as it likes. So a connection is closed at its
// MAX_FAILURES_PER_CONNECTION-th failure, and a client address (IPv6: its /64) with `maxPerClient` wrong tokens
// within 15 minutes is refused unchecked until older failures leave the window, as the console's sign-in is
// (domain/submission/auth-failures.ts; the count is in the database, so every API process sees it). Only a
// wrong token counts towards the address's limit: a valid token refused for another reason guesses nothing.
// One address's AUTHs are checked one after the other in a process: side by side, each read the count before
// any of them was written, and a burst on many connections got as many guesses as it had connections.
import type { SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../domain/app-context.js';
import type { SendAuth } from '../domain/accepting/accept.js';
import type { SubmissionAuth } from '../domain/submission/authorize.js';
import { recentAuthFailures, recordAuthFailure } from '../domain/submission/auth-failures.js';
import { clientKey } from './client-key.js';
import { authRefusal, type SmtpReply } from './submission-replies.js';

export const MAX_FAILURES_PER_CONNECTION = 3;

export class AuthGuard {
  private readonly failures = new WeakMap<SMTPServerSession, number>();
  /** Per client: the end of the last AUTH under way (the next one waits for it). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly maxPerClient: number,
  ) {}

  /** One AUTH: `check` decides it unless the client is over its limit; a failure is counted and may close the connection. */
  async attempt(session: SMTPServerSession, check: () => Promise<SubmissionAuth>): Promise<SendAuth | SmtpReply> {
    if (this.maxPerClient === 0) return this.decide(session, null, check);
    const client = clientKey(session.remoteAddress);
    const before = this.queues.get(client) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const queued = before.then(() => mine);
    this.queues.set(client, queued);
    try {
      await before;
      return await this.decide(session, client, check);
    } finally {
      done();
      if (this.queues.get(client) === queued) this.queues.delete(client);
    }
  }

  private async decide(session: SMTPServerSession, client: string | null, check: () => Promise<SubmissionAuth>): Promise<SendAuth | SmtpReply> {
    if (client !== null) {
      const n = await recentAuthFailures(this.ctx.db, client, this.ctx.clock.now());
      // 421: the connection closes.
      if (n >= this.maxPerClient) return { code: 421, message: `4.7.0 Too many failed authentications from your address (${n} in 15 minutes); try again later` };
    }
    const r = await check();
    if (r.ok) return r.auth;
    if (client !== null && r.reason === 'bad-token') await recordAuthFailure(this.ctx.db, client, this.ctx.clock.now());
    const refused = authRefusal(r.reason);
    const n = (this.failures.get(session) ?? 0) + 1;
    this.failures.set(session, n);
    if (n < MAX_FAILURES_PER_CONNECTION) return refused;
    return { code: 421, message: `4.7.0 ${n} failed authentications on this connection, closing it: ${refused.message.replace(/^\d\.\d+\.\d+ /, '')}` };
  }
}
