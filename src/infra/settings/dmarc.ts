// DMARC aggregate reports: where they are mailed, how long they are kept, which addresses are our own.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const DMARC_SETTINGS = {
  MAILROOM_DMARC_REPORT_ADDRESS: {
    area: 'DMARC reports',
    default: 'dmarc@<inbound domain>',
    description: 'where DMARC aggregate reports are mailed; each domain\'s `rua` is its signed sub-address `<local>+<domain id>.<tag>@<domain>`. Its domain\'s MX must point at the inbound listener. See "DMARC aggregate reports"',
    kind: { type: 'report-address' },
    field: 'dmarc.report',
    derive: (get) => `dmarc@${String(get('MAILROOM_INBOUND_DOMAIN'))}`,
  },
  MAILROOM_DMARC_RETENTION_DAYS: {
    area: 'DMARC reports',
    default: '180',
    description: 'DMARC reports (taken in, refused and kept apart) are deleted this many days after they arrive (7 to 3650), by the retention run',
    kind: { type: 'int', min: 7, max: 3650, fallback: 180 },
    field: 'dmarc.retentionDays',
  },
  MAILROOM_DMARC_OWN_SOURCES: {
    area: 'DMARC reports',
    default: 'unset',
    description: 'IPs/CIDRs counted as mailroom\'s own sending addresses in DMARC summaries besides the `MAILROOM_IP_POOLS` addresses and this host\'s interfaces: a relay\'s or a NAT\'s public addresses, other hosts of the cluster',
    kind: { type: 'ip-list' },
    field: 'dmarc.ownSources',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
