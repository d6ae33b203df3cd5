import type { Generated } from 'kysely';

export interface SuppressionsTable {
  id: Generated<number>;
  server_id: number;
  stream_id: string;
  /** Lowercased address. */
  email: string;
  /** ManualSuppression | HardBounce | SpamComplaint */
  reason: string;
  /** Recipient | Customer | Admin */
  origin: string;
  created_at: number;
}
