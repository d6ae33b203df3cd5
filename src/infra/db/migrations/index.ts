// The static, ordered list of migrations. Names sort in the order they run; never edit one that has
// shipped, add a new one.
import type { Migration } from './helpers.js';
import * as m0001 from './0001-foundation.js';
import * as m0002 from './0002-sending.js';
import * as m0003 from './0003-delivery.js';
import * as m0004 from './0004-streams.js';
import * as m0005 from './0005-tracking.js';
import * as m0006 from './0006-senders.js';
import * as m0007 from './0007-webhooks.js';
import * as m0008 from './0008-bounces.js';
import * as m0009 from './0009-templates-stats.js';
import * as m0010 from './0010-tag-digest-indexes.js';
import * as m0012 from './0012-drop-messages-retention-index.js';
import * as m0011 from './0011-drop-plain-recipient-index.js';
import * as m0013 from './0013-jobs-message-id.js';
import * as m0014 from './0014-console-users.js';
import * as m0016 from './0016-data-removals.js';
import * as m0015 from './0015-inbound.js';
import * as m0019 from './0019-mta-sts.js';
import * as m0020 from './0020-periodic-tasks.js';
import * as m0022 from './0022-destination-pacing.js';
import * as m0017 from './0017-worker-heartbeats.js';
import * as m0021 from './0021-ip-pools.js';
import * as m0023 from './0023-time-partitions.js';
import * as m0024 from './0024-suppressions-email.js';
import * as m0025 from './0025-bulk-email.js';
import * as m0026 from './0026-postmaster-messages.js';
import * as m0027 from './0027-inbound-hook-password.js';
import * as m0029 from './0029-custom-tracking-domains.js';
import * as m0030 from './0030-bulk-messages-order.js';
import * as m0031 from './0031-mailpit-state.js';
import * as m0032 from './0032-dmarc-reports.js';
import * as m0033 from './0033-inbound-hook-responses.js';
import * as m0034 from './0034-text-search.js';
import * as m0035 from './0035-sandbox-any-from.js';
import * as m0037 from './0037-message-size.js';
import * as m0038 from './0038-mailpit-counts.js';
import * as m0039 from './0039-metadata-index.js';
import * as m0040 from './0040-mailpit-tag-unread.js';

export const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-sending': m0002,
  '0003-delivery': m0003,
  '0004-streams': m0004,
  '0005-tracking': m0005,
  '0006-senders': m0006,
  '0007-webhooks': m0007,
  '0008-bounces': m0008,
  '0009-templates-stats': m0009,
  '0010-tag-digest-indexes': m0010,
  '0011-drop-plain-recipient-index': m0011,
  '0012-drop-messages-retention-index': m0012,
  '0013-jobs-message-id': m0013,
  '0014-console-users': m0014,
  '0016-data-removals': m0016,
  '0015-inbound': m0015,
  '0019-mta-sts': m0019,
  '0020-periodic-tasks': m0020,
  '0022-destination-pacing': m0022,
  '0017-worker-heartbeats': m0017,
  '0021-ip-pools': m0021,
  '0023-time-partitions': m0023,
  '0024-suppressions-email': m0024,
  '0025-bulk-email': m0025,
  '0026-postmaster-messages': m0026,
  '0027-inbound-hook-password': m0027,
  '0029-custom-tracking-domains': m0029,
  '0030-bulk-messages-order': m0030,
  '0031-mailpit-state': m0031,
  '0032-dmarc-reports': m0032,
  '0033-inbound-hook-responses': m0033,
  '0034-text-search': m0034,
  '0035-sandbox-any-from': m0035,
  '0037-message-size': m0037,
  '0038-mailpit-counts': m0038,
  '0039-metadata-index': m0039,
  '0040-mailpit-tag-unread': m0040,
};
