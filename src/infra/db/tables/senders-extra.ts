// Columns added by migration 0006-senders (issue 7) to the tables declared in senders.ts.
import type { WithDefault } from './defaults.js';

export interface SenderSignaturesExtra {
  /** Random value bound into the signed confirmation link. */
  confirm_nonce: WithDefault<string>;
  confirmation_sent_at: number | null;
  return_path_checked_at: number | null;
}

export interface DomainsExtra {
  return_path_checked_at: number | null;
}

export interface DkimKeysExtra {
  /** Last DNS check of a pending key. */
  checked_at: number | null;
  /** When a revoked key stopped being needed by queued mail (SafeToRemoveRevokedKeyFromDNS). */
  removable_at: number | null;
}
