// The database as Kysely sees it: one interface per table, in src/infra/db/tables/.
import type { AccountsTable, ApiTokensTable } from './tables/accounts.js';
import type { BouncesTable } from './tables/bounces.js';
import type { BulkAttachmentsTable, BulkPagesTable, BulkRequestsTable } from './tables/bulk.js';
import type { ConsoleLoginFailuresTable, ConsoleSessionsTable, ConsoleUsersTable } from './tables/console.js';
import type { DataRemovalsTable } from './tables/data-removals.js';
import type { DmarcRecordsTable, DmarcReportsTable } from './tables/dmarc.js';
import type { DestinationPaceTable } from './tables/destination-pace.js';
import type { InboundReportsTable, PostmasterMessagesTable } from './tables/inbound-reports.js';
import type { InboundAttemptsTable, InboundMessagesTable, InboundRulesTable } from './tables/inbound.js';
import type { JobsTable } from './tables/jobs.js';
import type { MailpitStateTable } from './tables/mailpit.js';
import type { MessageMetadataTable } from './tables/message-metadata.js';
import type { MessageStreamsTable } from './tables/message-streams.js';
import type { MtaStsPoliciesTable } from './tables/mta-sts.js';
import type { PeriodicTasksTable } from './tables/periodic-tasks.js';
import type {
  MessageAttachmentsTable,
  MessageEventsTable,
  MessageRecipientsTable,
  MessagesTable,
} from './tables/messages.js';
import type { DkimKeysTable, DomainsTable, SenderSignaturesTable } from './tables/senders.js';
import type { IdempotencyKeysTable } from './tables/sending.js';
import type { ServersTable } from './tables/servers.js';
import type { SuppressionsTable } from './tables/suppressions.js';
import type { StatsDailyTable, TemplatesTable } from './tables/templates-stats.js';
import type { ClicksTable, OpensTable } from './tables/tracking.js';
import type { WorkerHeartbeatsTable } from './tables/worker-heartbeats.js';
import type { WebhookAttemptsTable, WebhookNotificationsTable, WebhooksTable } from './tables/webhooks.js';

export interface Database {
  accounts: AccountsTable;
  api_tokens: ApiTokensTable;
  servers: ServersTable;
  message_streams: MessageStreamsTable;
  jobs: JobsTable;
  periodic_tasks: PeriodicTasksTable;
  mta_sts_policies: MtaStsPoliciesTable;
  destination_pace: DestinationPaceTable;
  messages: MessagesTable;
  mailpit_state: MailpitStateTable;
  message_metadata: MessageMetadataTable;
  message_recipients: MessageRecipientsTable;
  message_attachments: MessageAttachmentsTable;
  message_events: MessageEventsTable;
  suppressions: SuppressionsTable;
  domains: DomainsTable;
  dkim_keys: DkimKeysTable;
  sender_signatures: SenderSignaturesTable;
  bounces: BouncesTable;
  inbound_reports: InboundReportsTable;
  postmaster_messages: PostmasterMessagesTable;
  dmarc_reports: DmarcReportsTable;
  dmarc_records: DmarcRecordsTable;
  inbound_messages: InboundMessagesTable;
  inbound_rules: InboundRulesTable;
  inbound_attempts: InboundAttemptsTable;
  webhooks: WebhooksTable;
  webhook_notifications: WebhookNotificationsTable;
  webhook_attempts: WebhookAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  opens: OpensTable;
  clicks: ClicksTable;
  templates: TemplatesTable;
  stats_daily: StatsDailyTable;
  console_users: ConsoleUsersTable;
  console_sessions: ConsoleSessionsTable;
  console_login_failures: ConsoleLoginFailuresTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  data_removals: DataRemovalsTable;
  bulk_requests: BulkRequestsTable;
  bulk_pages: BulkPagesTable;
  bulk_attachments: BulkAttachmentsTable;
}
