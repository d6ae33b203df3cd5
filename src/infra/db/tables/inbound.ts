import type { WithDefault } from './defaults.js';
import type { Generated } from 'kysely';

/** One message received for a server's inbound address (migration 0015). */
export interface InboundMessagesTable {
  id: string;
  server_id: number;
  stream_id: string;
  digest: string;
  from_email: string;
  from_name: string;
  /** Lowercased To, Cc and envelope recipient addresses, space separated. */
  recipients: string;
  original_recipient: string;
  subject: string;
  mailbox_hash: string;
  tag: string;
  /** Queued | Scheduled | Processed | Failed | Blocked */
  status: string;
  blocked_reason: WithDefault<string>;
  spam_score: number | null;
  /** The JSON body posted to InboundHookUrl. */
  payload: string;
  attempts: WithDefault<number>;
  last_error: string | null;
  received_at: number;
  processed_at: number | null;
}

export interface InboundRulesTable {
  id: Generated<number>;
  server_id: number;
  rule: string;
  created_at: number;
}

export interface InboundAttemptsTable {
  id: Generated<number>;
  inbound_id: string;
  attempt: number;
  outcome: string;
  status_code: number | null;
  error: string | null;
  started_at: number;
  duration_ms: number;
  /** The first bytes of the application's answer (migration 0033); null before it or when none came. */
  response_excerpt: WithDefault<string | null>;
}
