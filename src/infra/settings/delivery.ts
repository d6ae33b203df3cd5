// Delivering mail: relay, capture or MX, EHLO, IP pools, concurrency and per-destination limits, age
// and lease of a delivery, the CA file outbound certificates are checked against.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const DELIVERY_SETTINGS = {
  MAILROOM_SMTP_RELAY: {
    area: 'Delivery',
    default: 'unset',
    description: '`smtp://[user:pass@]host:port` (or `smtps://`): deliver through this relay; unset = direct MX delivery',
    kind: { type: 'smtp-url' },
    field: 'smtpRelay',
  },
  MAILROOM_CAPTURE_DIR: {
    area: 'Delivery',
    default: 'unset',
    description: 'a folder: deliver every message (and system mail) to a local capture that writes each one there as an `.eml` file, instead of to the internet (trying mailroom out, "First send" above). Not together with `MAILROOM_SMTP_RELAY`',
    kind: { type: 'path' },
    field: 'captureDir',
    // Both set would leave one of them silently ignored: which one delivers must be plain.
    check: (dir, get) => (dir !== null && get('MAILROOM_SMTP_RELAY') !== null ? 'set either it or MAILROOM_SMTP_RELAY, not both' : null),
  },
  MAILROOM_EHLO_NAME: {
    area: 'Delivery',
    default: 'host name if fully qualified, else the return-path domain',
    description: 'name mailroom gives in EHLO',
    kind: { type: 'string' },
    field: 'ehloName',
  },
  MAILROOM_IP_POOLS: {
    area: 'Delivery',
    default: 'unset (the OS chooses the source address)',
    description: 'named pools of local source addresses, each with its EHLO name, assigned to servers and streams by `IpPool`: `name=ip[,ip...][@ehlo];...` or JSON. See "Delivery", "IP pools"',
    kind: { type: 'ip-pools' },
    field: 'ipPools',
  },
  MAILROOM_DELIVERY_CONCURRENCY: {
    area: 'Delivery',
    default: '64',
    description: 'deliveries in flight per worker process (from claim to recorded outcome); also the most a killed worker makes others send twice ("Crash safety")',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 64 },
    field: 'deliveryConcurrency',
  },
  MAILROOM_DELIVERY_DOMAIN_CONCURRENCY: {
    area: 'Delivery',
    default: '16',
    description: 'deliveries in flight per destination domain per worker process',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 16 },
    field: 'deliveryDomainConcurrency',
  },
  MAILROOM_DEST_MAX_CONNECTIONS: {
    area: 'Delivery',
    default: '10',
    description: 'SMTP connections at once to one destination (recipient domain) per worker process; fewer while it throttles (see "Delivery")',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 10 },
    field: 'destMaxConnections',
  },
  MAILROOM_DEST_MAX_RATE: {
    area: 'Delivery',
    default: '0 (none)',
    description: 'messages a minute to one destination per worker process; a throttling destination is slowed below it either way',
    kind: { type: 'int', min: 0, max: 1_000_000, fallback: 0 },
    field: 'destMaxRatePerMinute',
  },
  MAILROOM_DELIVERY_MAX_AGE_HOURS: {
    area: 'Delivery',
    default: '72',
    description: 'a recipient still failing transiently after this long is given up as a SoftBounce',
    kind: { type: 'int', min: 1, max: 24 * 30, fallback: 72 },
    field: 'deliveryMaxAgeHours',
  },
  MAILROOM_DELIVERY_LEASE_SECONDS: {
    area: 'Delivery',
    default: '30',
    description: 'lease on a claimed delivery job, renewed every 10 s while it runs; a dead worker\'s jobs return after it',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 30 },
    field: 'deliveryLeaseMs',
  },
  MAILROOM_TLS_CA_FILE: {
    area: 'Delivery',
    default: 'unset',
    description: 'PEM CA certificate trusted, besides Node\'s bundled roots, when outbound certificates are verified (relay, MTA-STS enforce; see "Delivery")',
    kind: { type: 'ca-file' },
    field: 'tlsCa',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
