/** Reports (DSN, ARF, auto-replies) already taken in by the inbound listener, for idempotent intake. */
export interface InboundReportsTable {
  /** sha256 hex of the raw message and the envelope recipient. */
  digest: string;
  received_at: number;
}
