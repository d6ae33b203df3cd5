import type { WithDefault } from './defaults.js';
export interface MessageStreamsTable {
  server_id: number;
  id: string;
  name: string;
  description: string | null;
  type: 'Transactional' | 'Broadcasts' | 'Inbound';
  is_default: WithDefault<number>;
  created_at: number;
  updated_at: number | null;
  archived_at: number | null;
  expected_purge_at: number | null;
  /** None | Postmark | Custom; null = the default of the type (migration 0004). */
  unsubscribe_handling: WithDefault<string | null>;
  /** IP pool overriding the server's; null: the server's (migration 0021). */
  ip_pool: WithDefault<string | null>;
}
