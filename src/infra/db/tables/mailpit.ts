import type { WithDefault } from './defaults.js';

/** Mailpit's per-message state (src/domain/mailpit, migration 0031); a row only for a message read or tagged. */
export interface MailpitStateTable {
  message_id: string;
  server_id: number;
  /** 1: read through the Mailpit API or the console. */
  read: WithDefault<number>;
  /** JSON array of the tags set through the API; null: the message's Tag is its only tag. */
  tags: WithDefault<string | null>;
}
