// One transaction's work for a group of send requests ("units"): replay answers of known idempotency keys,
// run the database checks of every message, store the accepted ones and record the new keys' answers.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode, httpStatusFor } from '../errors.js';
import { iso } from '../../infra/time.js';
import { newMessageId } from './message-id.js';
import { checkMessage, loadCheckData } from './checks.js';
import { findStoredAnswer, storeAnswer } from './idempotency.js';
import { storeMessages, type AcceptedMessage, type StoreContext } from './store.js';
import type { SendOutcome, SendResult } from './types.js';
import type { SendUnit, UnitResult } from './send-unit.js';

export type { Slot, SendUnit, UnitResult } from './send-unit.js';

export function failure(err: ApiError): SendOutcome {
  return { result: { ErrorCode: err.errorCode, Message: err.message }, status: err.status ?? httpStatusFor(err.errorCode) };
}

export const replayed = (results: SendResult[]): SendOutcome[] => results.map((result) => ({ result, status: 200 }));

/** Checks and (unless `dryRun`, the test token) stores the units; returns one result per unit, in order. */
export async function commitUnits(db: Kysely<Database>, ctx: StoreContext, units: SendUnit[], now: number, dryRun = false): Promise<UnitResult[]> {
  const results: Array<UnitResult | null> = units.map(() => null);
  for (let i = 0; i < units.length; i++) {
    const u = units[i];
    if (!u.idempotency) continue;
    try {
      const stored = await findStoredAnswer(db, u.sender.serverId, u.idempotency, now);
      if (stored) results[i] = { outcomes: replayed(stored) };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      results[i] = { error: err };
    }
  }
  const pending = units.flatMap((u, i) => (results[i] ? [] : u.slots.flatMap((s) => ('message' in s ? [{ sender: u.sender, message: s.message }] : []))));
  const data = pending.length ? await loadCheckData(db, ctx.database.sql, pending) : null;
  const submittedAt = iso(now)!;
  const accepted: AcceptedMessage[] = [];
  const keys: Array<{ unit: SendUnit; results: SendResult[] }> = [];
  // Two requests with one key in the same group: the later one gets the earlier one's answer.
  const inGroup = new Map<string, { hash: string; results: SendResult[] }>();
  units.forEach((u, i) => {
    if (results[i]) return;
    const groupKey = u.idempotency ? `${u.sender.serverId}|${u.idempotency.key}` : null;
    const earlier = groupKey ? inGroup.get(groupKey) : undefined;
    if (earlier) {
      results[i] =
        earlier.hash === u.idempotency!.hash
          ? { outcomes: replayed(earlier.results) }
          : { error: new ApiError(ErrorCode.InvalidEmailRequest, 'This Idempotency-Key was already used for a different request in the last 24 hours.') };
      return;
    }
    const outcomes = u.slots.map((slot): SendOutcome => {
      if ('outcome' in slot) return slot.outcome;
      const m = slot.message;
      const refusal = checkMessage(data!, u.sender, m);
      if (refusal) return failure(refusal);
      const id = newMessageId(now);
      if (!dryRun) accepted.push({ id, serverId: u.sender.serverId, message: m, settings: data!.servers.get(u.sender.serverId)! });
      return { result: { To: m.toRaw, SubmittedAt: submittedAt, MessageID: id, ErrorCode: 0, Message: dryRun ? 'Test job accepted' : 'OK' }, status: 200 };
    });
    results[i] = { outcomes };
    if (u.idempotency && !dryRun && outcomes.some((o) => o.result.ErrorCode === 0)) {
      const stored = outcomes.map((o) => o.result);
      keys.push({ unit: u, results: stored });
      inGroup.set(groupKey!, { hash: u.idempotency.hash, results: stored });
    }
  });
  if (!dryRun) {
    await storeMessages(db, ctx, accepted, now);
    for (const k of keys) await storeAnswer(db, k.unit.sender.serverId, k.unit.idempotency!, k.results, now);
  }
  return results as UnitResult[];
}
