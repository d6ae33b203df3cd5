import type { WithDefault } from './defaults.js';
import type { Generated } from 'kysely';

/**
 * A notification target of one stream (docs/reference/webhooks.md, "Webhook record"). Secrets are sealed at
 * rest.
 */
export interface WebhooksTable {
  id: Generated<number>;
  server_id: number;
  stream_id: string;
  url: string;
  /** JSON: the full Triggers object, every key present. */
  triggers: string;
  http_auth_user: WithDefault<string>;
  /** ctx.secrets.seal(password), or '' when no password is set. */
  http_auth_password: WithDefault<string>;
  /** JSON [{Name, Value}] */
  headers: WithDefault<string>;
  /** ctx.secrets.seal(secret): the HMAC-SHA256 key of the signature header. */
  signing_secret: string;
  /** Sealed secret replaced by the last rotation ('' when none); still signs until previous_secret_until. */
  previous_signing_secret: WithDefault<string>;
  previous_secret_until: number | null;
  created_at: number;
  updated_at: number | null;
}

/** One event to deliver to one webhook: written in the event's transaction, delivered at least once. */
export interface WebhookNotificationsTable {
  id: Generated<number>;
  webhook_id: number;
  server_id: number;
  event_id: number;
  /** Delivery | Bounce | SpamComplaint | Open | Click | SubscriptionChange */
  record_type: string;
  /** The exact JSON body sent (and signed). */
  payload: string;
  /** pending | delivered | failed */
  status: WithDefault<string>;
  attempts: WithDefault<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  completed_at: number | null;
}

/** Every HTTP attempt, for GET /webhooks/{id}/deliveries. */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  notification_id: number;
  webhook_id: number;
  event_id: number;
  attempt: number;
  /** delivered | retrying | failed */
  outcome: string;
  status_code: number | null;
  error: string | null;
  started_at: number;
  duration_ms: number;
}
