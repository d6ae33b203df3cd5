import type { Generated } from 'kysely';

/** Bounce and spam-complaint records (docs/reference/bounces.md). */
export interface BouncesTable {
  id: Generated<number>;
  server_id: number;
  stream_id: string;
  message_id: string | null;
  /** HardBounce, SoftBounce, Transient, SpamComplaint, ... */
  type: string;
  type_code: number;
  name: string;
  email: string;
  from_email: string;
  tag: string | null;
  subject: string;
  description: string;
  details: string;
  bounced_at: number;
  inactive: number;
  can_activate: number;
  /** The raw bounce message (DSN/ARF), when one was received. */
  dump: string | null;
  content: string | null;
}
