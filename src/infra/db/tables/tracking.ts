import type { Generated } from 'kysely';

/** Columns shared by the stored open and click: who, when, and the parsed user agent. */
interface TrackingHitColumns {
  id: Generated<number>;
  message_id: string;
  server_id: number;
  stream_id: string;
  recipient: string;
  tag: string | null;
  occurred_at: number;
  user_agent: string;
  client_name: string;
  client_company: string;
  client_family: string;
  os_name: string;
  os_company: string;
  os_family: string;
  /** Desktop | WebMail | Mobile | Unknown */
  platform: string;
}

/** The first open of a message by one recipient (later opens are events only). */
export type OpensTable = TrackingHitColumns;

/** The first click of one link of a message by one recipient (later clicks are events only). */
export interface ClicksTable extends TrackingHitColumns {
  original_link: string;
  /** SHA-256 hex of original_link, part of the uniqueness key. */
  link_hash: string;
  /** HTML | Text */
  click_location: string;
}
