/** Reports (DSN, ARF, auto-replies) already taken in by the inbound listener, for idempotent intake. */
export interface InboundReportsTable {
  /** sha256 hex of the raw message and the envelope recipient. */
  digest: string;
  received_at: number;
}

/** Mail for postmaster, kept for the operator (migration 0026, domain/inbound/postmaster.ts). */
export interface PostmasterMessagesTable {
  id: string;
  digest: string;
  received_at: number;
  remote_ip: string;
  mail_from: string;
  recipients: string;
  from_header: string;
  subject: string;
  size: number;
  message: string;
}
