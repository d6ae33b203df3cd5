/** The first answer to a request that carried an Idempotency-Key header (src/domain/accepting/idempotency.ts). */
export interface IdempotencyKeysTable {
  server_id: number;
  key: string;
  /** SHA-256 of the route and the request body: the same key with another request is refused. */
  request_hash: string;
  /** JSON: the per-message results of the first request. */
  response: string;
  created_at: number;
}
