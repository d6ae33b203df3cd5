import type { Generated } from 'kysely';

/** A DMARC aggregate report taken in or refused (migration 0032, domain/dmarc/store.ts). */
export interface DmarcReportsTable {
  id: Generated<number>;
  account_id: number | null;
  domain_id: number | null;
  policy_domain: string;
  recipient: string;
  remote_ip: string;
  org_name: string;
  email: string;
  extra_contact: string;
  report_id: string;
  begin_at: number;
  end_at: number;
  policies: string;
  errors: string;
  record_count: number;
  message_count: number;
  status: 'stored' | 'refused';
  reason: string;
  file_name: string;
  dedupe_key: string;
  received_at: number;
}

/** One record of a report: a source IP with its count and results (migration 0032). */
export interface DmarcRecordsTable {
  id: Generated<number>;
  report_id: number;
  domain_id: number | null;
  day: number;
  source_ip: string;
  count: number;
  disposition: string;
  dkim: string;
  spf: string;
  header_from: string;
  envelope_from: string;
  envelope_to: string;
  dkim_auth: string;
  spf_auth: string;
  reasons: string;
}
