// What a send request hands the group commit, and the group commit as the rest of the service sees it
// (AppContext.sendBatcher; send-batcher.ts is the one implementation, built by the composition root).
import type { ApiError } from '../errors.js';
import type { Sender } from './checks.js';
import type { IdempotencyInput } from './idempotency.js';
import type { PreparedMessage, SendOutcome } from './types.js';

/** A slot is either an outcome already known (the message failed validation) or a message to check. */
export type Slot = { outcome: SendOutcome } | { message: PreparedMessage };

export interface SendUnit {
  sender: Sender;
  slots: Slot[];
  idempotency: IdempotencyInput | null;
}

export type UnitResult = { outcomes: SendOutcome[] } | { error: ApiError };

export interface SendQueue {
  /** Resolves once the request's messages are committed and on disk. */
  submit(unit: SendUnit): Promise<UnitResult>;
  /** Resolves when every submitted request has been committed and synced (graceful shutdown). */
  drain(): Promise<void>;
  /** Transactions written and requests they carried (bench/send reports the average group size). */
  readonly stats: { transactions: number; requests: number };
  /** Messages submitted and not yet answered: queued or being written (MAILROOM_SEND_QUEUE_LIMIT caps them). */
  readonly waiting: number;
}

// A part of the process's context, declared by this area (domain/app-context.ts says why).
declare module '../app-context.js' {
  interface AppContext {
    /** The group commit of every send request (POST /email and the other send routes): send-batcher.ts. */
    sendBatcher: SendQueue;
  }
}
