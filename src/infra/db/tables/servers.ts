import type { WithDefault } from './defaults.js';
import type { Generated } from 'kysely';

export interface ServersTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  color: WithDefault<string>;
  delivery_type: WithDefault<'Live' | 'Sandbox'>;
  smtp_api_activated: WithDefault<number>;
  raw_email_enabled: WithDefault<number>;
  /** Without its password, which is inbound_hook_password (migration 0027). */
  inbound_hook_url: WithDefault<string>;
  /** The InboundHookUrl's password, sealed (infra/crypto/secrets.ts); '' for none. */
  inbound_hook_password: WithDefault<string>;
  bounce_hook_url: WithDefault<string>;
  open_hook_url: WithDefault<string>;
  delivery_hook_url: WithDefault<string>;
  click_hook_url: WithDefault<string>;
  post_first_open_only: WithDefault<number>;
  inbound_domain: WithDefault<string>;
  inbound_hash: WithDefault<string>;
  inbound_spam_threshold: WithDefault<number>;
  track_opens: WithDefault<number>;
  /** None | HtmlAndText | HtmlOnly | TextOnly */
  track_links: WithDefault<string>;
  include_bounce_content_in_hook: WithDefault<number>;
  enable_smtp_api_error_hooks: WithDefault<number>;
  retention_days: WithDefault<number>;
  /** Name of a MAILROOM_IP_POOLS pool the server's mail leaves from; null: none (migration 0021). */
  ip_pool: WithDefault<string | null>;
  /** 1: a Sandbox server takes any From address, no sender signature needed (migration 0034). */
  sandbox_any_from: WithDefault<number>;
  created_at: number;
}
