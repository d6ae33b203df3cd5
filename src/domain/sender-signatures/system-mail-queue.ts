// The 'system-mail' queue: mail the service sends on its own behalf (confirmation emails), written as a
// job in the transaction that calls for it, sent by delivery/system-mail.ts. A temporary failure retries
// on the queue's backoff; a permanent refusal (5xx) is logged and dropped, since retrying cannot help.
import type { AppContext } from '../app-context.js';
import { sendSystemMail, SYSTEM_MAIL_QUEUE, SystemMailError, type SystemMail } from '../delivery/system-mail.js';
import { completeJob } from '../../infra/jobs/complete.js';

export { SYSTEM_MAIL_QUEUE };

export function registerSystemMail(ctx: AppContext): void {
  ctx.runner.register({
    queue: SYSTEM_MAIL_QUEUE,
    concurrency: 4,
    maxAttempts: 12,
    async handle(job) {
      const mail = JSON.parse(job.payload) as SystemMail;
      try {
        await sendSystemMail(ctx, mail);
      } catch (err) {
        if (!(err instanceof SystemMailError && err.permanent)) throw err;
        ctx.logger.warn({ jobId: job.id, to: mail.to, err: err.message }, 'system mail refused for good; dropped');
      }
      await completeJob(ctx.db, job.id);
    },
  });
}
