// Mailpit's Size of a listed message: the bytes of its source, with the attachments' own bytes (left out of
// the source) added. Measuring means composing the message (view.ts rawOf), which a list page of large
// messages cannot afford on the event loop, so the size is computed once and kept (messages.size, migration
// 0037): from the as-sent source when delivery kept one, else composed on the process's worker threads,
// several messages a task; a full pool answers 503 (ServiceBusy) rather than waiting in memory.
import type { Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import { composeInputOf } from '../delivery/compose-input.js';
import type { ComposeInput } from '../delivery/compose.js';
import type { MessagesTable } from '../../infra/db/tables/messages.js';
import { PoolFull, WorkerLost, taskModule } from '../../infra/threads/pool.js';
import { ServiceBusy } from '../errors.js';
import { storeSizes } from '../message-store/set-size.js';

export interface Measured {
  row: Selectable<MessagesTable>;
  recipients: ReadonlyArray<{ kind: string; email: string; name: string }>;
  attachments: ReadonlyArray<{ Name: string; ContentType: string; ContentID: string | null; ContentLength: number }>;
}

/** The characters of message bodies sent to one task: a few megabytes, so several tasks share the pool. */
const TASK_CHARS = 4_000_000;
const TASK = taskModule(import.meta.url, 'size-task');

export const attachmentBytes = (m: Pick<Measured, 'attachments'>) => m.attachments.reduce((n, a) => n + (a.ContentLength || 0), 0);

const inputOf = (ctx: AppContext, m: Measured): ComposeInput => {
  const files = m.attachments.map((a) => ({ name: a.Name, contentType: a.ContentType, contentId: a.ContentID, content: null }));
  return composeInputOf(ctx, m.row, m.recipients, files);
};
const charsOf = (m: Measured) => (m.row.html_body?.length ?? 0) + (m.row.text_body?.length ?? 0) + m.row.headers.length + 1024;

async function composedLengths(ctx: AppContext, batch: Measured[]): Promise<number[]> {
  try {
    return await ctx.threads.run<number[]>(TASK, 'composedLengths', batch.map((m) => inputOf(ctx, m)));
  } catch (err) {
    if (err instanceof PoolFull || err instanceof WorkerLost) {
      throw new ServiceBusy('The service is measuring too many messages at once; ask again shortly.');
    }
    throw err;
  }
}

/** The Size of each message, in order; those not measured before are measured now and stored. */
export async function sizesOf(ctx: AppContext, messages: Measured[]): Promise<number[]> {
  const sizes = messages.map((m) => (m.row.size === null ? null : Number(m.row.size)));
  const toCompose: number[] = [];
  messages.forEach((m, i) => {
    if (sizes[i] !== null) return;
    // Byte length is a native pass over the string, no composition.
    if (m.row.mime) sizes[i] = Buffer.byteLength(m.row.mime) + attachmentBytes(m);
    else toCompose.push(i);
  });
  const batches: number[][] = [];
  let chars = Infinity;
  for (const i of toCompose) {
    if (chars >= TASK_CHARS) {
      batches.push([]);
      chars = 0;
    }
    batches[batches.length - 1]!.push(i);
    chars += charsOf(messages[i]!);
  }
  const lengths = await Promise.all(batches.map((b) => composedLengths(ctx, b.map((i) => messages[i]!))));
  batches.forEach((b, k) => b.forEach((i, j) => (sizes[i] = lengths[k]![j]! + attachmentBytes(messages[i]!))));
  const fresh = messages.map((m, i) => ({ id: m.row.id, size: sizes[i]! })).filter((_, i) => messages[i]!.row.size === null);
  if (fresh.length) {
    // Not ctx.db: a list runs under the read time limit (domain/read-limit.ts), in a read-only transaction on
    // PostgreSQL; the sizes are stored beside it, on the database itself.
    await ctx.database.db.transaction().execute(async (trx) => {
      await storeSizes(trx, fresh);
    });
  }
  return sizes as number[];
}
