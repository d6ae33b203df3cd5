// Worker registrations of the senders/domains area: the system-mail queue and the DNS re-check task.
import type { AppContext } from '../app-context.js';
import { dnsRecheckTask } from '../domains/recheck.js';
import { registerSystemMail } from './system-mail-queue.js';

export function registerSenderWorkers(ctx: AppContext): void {
  registerSystemMail(ctx);
  ctx.scheduler.add(dnsRecheckTask(ctx));
}
