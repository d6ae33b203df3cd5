/** One field of a message's Metadata (migration 0039): what GET /messages' metadata_<key>=<value> reads. */
export interface MessageMetadataTable {
  message_id: string;
  /** The field's name as given (case-sensitive, as the search matches it). */
  key: string;
  server_id: number;
  stream_id: string;
  value: string;
  /** The message's received_at: the search's order. */
  received_at: number;
}
