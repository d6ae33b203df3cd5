// The stream record as the API shows it (docs/reference/streams.md, "Stream record").
import type { Selectable } from 'kysely';
import type { MessageStreamsTable } from '../../infra/db/tables/message-streams.js';
import { iso } from '../../infra/time.js';
import { defaultUnsubscribeHandling } from './rules.js';

export type StreamRow = Selectable<MessageStreamsTable>;

export function streamView(row: StreamRow) {
  return {
    ID: row.id,
    ServerID: row.server_id,
    Name: row.name,
    Description: row.description ?? '',
    MessageStreamType: row.type,
    CreatedAt: iso(row.created_at),
    UpdatedAt: iso(row.updated_at),
    ArchivedAt: iso(row.archived_at),
    ExpectedPurgeDate: iso(row.expected_purge_at),
    SubscriptionManagementConfiguration: {
      UnsubscribeHandlingType: row.unsubscribe_handling ?? defaultUnsubscribeHandling(row.type),
    },
    /** mailroom extension: the IP pool this stream's mail leaves from, overriding the server's; null: the server's. */
    IpPool: row.ip_pool ?? null,
  };
}
