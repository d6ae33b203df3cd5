import type { WithDefault } from './defaults.js';
import type { Generated } from 'kysely';

/**
 * The durable queue (src/infra/jobs). A row is a unit of work that is due at `run_at`. A worker claims it by
 * setting `locked_by`/`locked_until` (a lease); a lease that expires makes the row claimable again, so a
 * worker that dies loses nothing. Finished jobs are deleted.
 */
export interface JobsTable {
  id: Generated<number>;
  queue: string;
  payload: string;
  run_at: number;
  attempts: WithDefault<number>;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  /** Jobs of one group (e.g. a destination domain) can be kept from running too many at once. */
  group_key: string | null;
  created_at: number;
  /** The message the job concerns (a delivery), so the queue can be searched by message (migration 0013). */
  message_id: WithDefault<string | null>;
}
