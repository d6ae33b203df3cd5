// DMARC aggregate reports (RFC 7489 7.2): one row per report taken in at the report address (or
// refused, with its reason), one row per report record (source IP with its count and results), and on each
// domain what its published _dmarc record was last found to say. A report for a domain mailroom does not
// know has account_id and domain_id null (kept apart for the operator). dedupe_key makes a report taken in
// once however often its reporter sends it (per target domain, reporter and report_id).
import type { Kysely } from 'kysely';
import { withId, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await withId(db.schema.createTable('dmarc_reports'), d, 'bigint')
    .addColumn('account_id', 'integer')
    .addColumn('domain_id', 'integer')
    // The domain of the (first) policy_published, lowercased; the domain a report is about.
    .addColumn('policy_domain', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('remote_ip', 'text', (c) => c.notNull())
    .addColumn('org_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('extra_contact', 'text', (c) => c.notNull())
    .addColumn('report_id', 'text', (c) => c.notNull())
    .addColumn('begin_at', 'bigint', (c) => c.notNull())
    .addColumn('end_at', 'bigint', (c) => c.notNull())
    // JSON: the policy_published elements and the report's error elements.
    .addColumn('policies', 'text', (c) => c.notNull())
    .addColumn('errors', 'text', (c) => c.notNull())
    .addColumn('record_count', 'integer', (c) => c.notNull())
    .addColumn('message_count', 'bigint', (c) => c.notNull())
    // 'stored' or 'refused' (a malformed or hostile file: `reason` says why, nothing else is kept).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dmarc_reports_domain').on('dmarc_reports').columns(['domain_id', 'end_at']).execute();
  await db.schema.createIndex('dmarc_reports_received').on('dmarc_reports').columns(['received_at']).execute();

  await withId(db.schema.createTable('dmarc_records'), d, 'bigint')
    .addColumn('report_id', 'bigint', (c) => c.notNull())
    .addColumn('domain_id', 'integer')
    // UTC midnight (ms) of the report's date_range begin: records carry no time of their own.
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('source_ip', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('disposition', 'text', (c) => c.notNull())
    .addColumn('dkim', 'text', (c) => c.notNull())
    .addColumn('spf', 'text', (c) => c.notNull())
    .addColumn('header_from', 'text', (c) => c.notNull())
    .addColumn('envelope_from', 'text', (c) => c.notNull())
    .addColumn('envelope_to', 'text', (c) => c.notNull())
    // JSON arrays: auth_results dkim and spf, policy_evaluated reasons.
    .addColumn('dkim_auth', 'text', (c) => c.notNull())
    .addColumn('spf_auth', 'text', (c) => c.notNull())
    .addColumn('reasons', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dmarc_records_report').on('dmarc_records').columns(['report_id']).execute();
  await db.schema.createIndex('dmarc_records_domain_day').on('dmarc_records').columns(['domain_id', 'day']).execute();

  await db.schema.alterTable('domains').addColumn('dmarc_verified', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // The p= of the record found at _dmarc.<domain> ('' when none was found).
  await db.schema.alterTable('domains').addColumn('dmarc_policy', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('domains').addColumn('dmarc_checked_at', 'bigint').execute();
}
