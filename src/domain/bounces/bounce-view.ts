// The bounce record as the API and the Bounce webhook show it (docs/reference/bounces.md).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { BouncesTable } from '../../infra/db/tables/bounces.js';
import type { Database } from '../../infra/db/schema.js';
import { fromFlag } from '../../infra/db/util.js';
import { iso } from '../../infra/time.js';

/** A bounce row as the API reads it: the stored fields without the raw message and content (loaded only
 * when asked for), plus whether a dump exists and the suppression that keeps the address inactive. */
export type BounceRow = Omit<Selectable<BouncesTable>, 'dump' | 'content'> & {
  dump_available: number;
  /** Id of the suppression that keeps the address inactive, if it still exists. */
  suppression_id: number | null;
};

/**
 * Bounces joined with the suppression of their address: an address is inactive only while it is suppressed (a
 * suppression deleted through the suppressions API reactivates it, docs/reference/suppressions.md, "States").
 */
export function bounceRows(db: Kysely<Database>) {
  return db
    .selectFrom('bounces as b')
    .leftJoin('suppressions as s', (j) => j.onRef('s.server_id', '=', 'b.server_id').onRef('s.stream_id', '=', 'b.stream_id').onRef('s.email', '=', 'b.email'))
    .select([
      'b.id',
      'b.server_id',
      'b.stream_id',
      'b.message_id',
      'b.type',
      'b.type_code',
      'b.name',
      'b.email',
      'b.from_email',
      'b.tag',
      'b.subject',
      'b.description',
      'b.details',
      'b.bounced_at',
      'b.inactive',
      'b.can_activate',
      sql<number>`case when b.dump is null or b.dump = '' then 0 else 1 end`.as('dump_available'),
      's.id as suppression_id',
    ]);
}

export function bounceView(r: BounceRow, content?: string | null): Record<string, unknown> {
  const v: Record<string, unknown> = {
    RecordType: 'Bounce',
    ID: r.id,
    Type: r.type,
    TypeCode: r.type_code,
    Name: r.name,
    Tag: r.tag ?? '',
    MessageID: r.message_id ?? '',
    ServerID: r.server_id,
    MessageStream: r.stream_id,
    Description: r.description,
    Details: r.details,
    Email: r.email,
    From: r.from_email,
    BouncedAt: iso(r.bounced_at),
    DumpAvailable: fromFlag(r.dump_available),
    Inactive: fromFlag(r.inactive) && r.suppression_id !== null,
    CanActivate: fromFlag(r.can_activate),
    Subject: r.subject,
  };
  if (content !== undefined) v.Content = content ?? '';
  return v;
}
