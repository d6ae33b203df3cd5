import type { Generated } from 'kysely';
import type { WithDefault } from './defaults.js';

/** One request to remove every trace of an address across an account (src/domain/data-removals). */
export interface DataRemovalsTable {
  id: Generated<number>;
  account_id: number;
  requested_by: string;
  /** The address to remove, in normalizeEmail() form. */
  requested_for: string;
  notify_when_completed: WithDefault<number>;
  /** Pending | Done */
  status: WithDefault<string>;
  /** The step last finished: progress, for operators. */
  step: WithDefault<string>;
  /** JSON {messages, bounces, notifications, idempotencyKeys}: rows removed so far. */
  removed: WithDefault<string>;
  created_at: number;
  completed_at: number | null;
}
