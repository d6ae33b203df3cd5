// The sender area's tables: domains, their DKIM keys, and sender signatures (columns of every migration).
import type { WithDefault } from './defaults.js';
import type { Generated } from 'kysely';

export interface DomainsTable {
  id: Generated<number>;
  account_id: number;
  /** Lowercased, IDN as A-label. */
  name: string;
  spf_verified: WithDefault<number>;
  dkim_verified: WithDefault<number>;
  /** null | Pending | Verified */
  dkim_update_status: WithDefault<string | null>;
  return_path_domain: WithDefault<string>;
  return_path_verified: WithDefault<number>;
  created_at: number;
  return_path_checked_at: number | null;
  /** The tracking host under the domain ('' for none; migration 0029). */
  custom_tracking_domain: WithDefault<string>;
  custom_tracking_verified: WithDefault<number>;
  custom_tracking_checked_at: number | null;
  /** Whether _dmarc.<name> names mailroom's report address, and its p= (migration 0032). */
  dmarc_verified: WithDefault<number>;
  dmarc_policy: WithDefault<string>;
  dmarc_checked_at: number | null;
}

export interface DkimKeysTable {
  id: Generated<number>;
  domain_id: number;
  selector: string;
  /** PKCS#8 PEM, encrypted at rest (src/infra/crypto/secret-box.ts). */
  private_key: string;
  /** The base64 `p=` value published in DNS. */
  public_key: string;
  bits: number;
  /** pending | active | revoked */
  state: string;
  created_at: number;
  activated_at: number | null;
  revoked_at: number | null;
  /** Last DNS check of a pending key. */
  checked_at: number | null;
  /** When a revoked key stopped being needed by queued mail (SafeToRemoveRevokedKeyFromDNS). */
  removable_at: number | null;
}

export interface SenderSignaturesTable {
  id: Generated<number>;
  account_id: number;
  domain_id: number;
  /** Lowercased address. */
  email: string;
  name: string;
  reply_to: WithDefault<string>;
  confirmed: WithDefault<number>;
  confirmed_at: number | null;
  confirmation_personal_note: WithDefault<string>;
  return_path_domain: WithDefault<string>;
  return_path_verified: WithDefault<number>;
  spf_verified: WithDefault<number>;
  created_at: number;
  /** Random value bound into the signed confirmation link. */
  confirm_nonce: WithDefault<string>;
  confirmation_sent_at: number | null;
  return_path_checked_at: number | null;
}
