// What a message search asks for (GET /messages and the console's Activity page), apart from how it is
// answered (search.ts, search-recipient-first.ts), so that both can name it without importing each other.

export interface MessageSearch {
  count: number;
  offset: number;
  recipient?: string;
  fromemail?: string;
  tag?: string;
  status?: string;
  subject?: string;
  fromdate?: string;
  todate?: string;
  messagestream?: string;
  /** metadata_<key>=<value> filters, keys as given. */
  metadata?: Record<string, string>;
  /** Keyset paging (the console): only messages older than this (received_at, id) ... */
  before?: Cursor;
  /** ... or newer than this one (new arrivals since a page was shown). */
  after?: Cursor;
  /** false: skip TotalCount (answered as -1). The console pages by keyset and does not show it; counting
   * the matches of a filter no index answers (metadata) costs far more than the page itself. */
  withTotal?: boolean;
  /** Aborted when the request went away: the search's statements stop (domain/read-limit.ts). */
  signal?: AbortSignal;
}

export interface Cursor {
  at: number;
  id: string;
}
