// POST /data-removals and GET /data-removals/{id} (account token): a request to remove every trace of an
// address across the account. The request row and its job are written in one transaction, so a 200 means
// the removal will happen (run.ts does it in the background).
import type { AppContext } from '../app-context.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import { fromFlag, toFlag } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';

export const DATA_REMOVAL_QUEUE = 'data-removal';

export interface DataRemovalInput {
  RequestedBy?: string | null;
  RequestedFor?: string | null;
  NotifyWhenCompleted?: boolean | null;
}

export interface DataRemovalView {
  ID: number;
  Status: 'Pending' | 'Done';
}

function address(field: string, value: string | null | undefined): string {
  const v = (value ?? '').trim();
  if (!v) throw new ApiError(ErrorCode.InvalidRequestFields, `${field} is required.`);
  const n = v.length <= 320 && /^[^\s@<>",;]+@[^\s@<>",;]+$/.test(v) ? normalizeEmail(v) : null;
  if (!n) throw new ApiError(ErrorCode.InvalidRequestFields, `${field} must be an email address.`);
  return n;
}

export async function requestDataRemoval(ctx: AppContext, accountId: number, input: DataRemovalInput): Promise<DataRemovalView> {
  const requestedBy = address('RequestedBy', input.RequestedBy);
  const requestedFor = address('RequestedFor', input.RequestedFor);
  const now = ctx.clock.now();
  const id = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('data_removals')
      .values({ account_id: accountId, requested_by: requestedBy, requested_for: requestedFor, notify_when_completed: toFlag(input.NotifyWhenCompleted), created_at: now, completed_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await enqueueJobs(trx, [{ queue: DATA_REMOVAL_QUEUE, payload: { id: row.id }, runAt: now }], now);
    return row.id;
  });
  ctx.runner.wake();
  return { ID: id, Status: 'Pending' };
}

export async function getDataRemoval(ctx: AppContext, accountId: number, id: number): Promise<DataRemovalView & { notify: boolean }> {
  const row = await ctx.db.selectFrom('data_removals').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  // No code is published for a missing data removal: the generic "not found" (12), as for webhooks.
  if (!row) throw new ApiError(ErrorCode.NotFound, `Data removal ${id} was not found.`);
  return { ID: row.id, Status: row.status === 'Done' ? 'Done' : 'Pending', notify: fromFlag(row.notify_when_completed) };
}
