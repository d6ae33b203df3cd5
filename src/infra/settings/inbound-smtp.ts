// The inbound SMTP listener (bounces, complaints, servers' inbound mail): address, domain, size and
// per-client limits, STARTTLS, spamd.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const INBOUND_SMTP_SETTINGS = {
  MAILROOM_INBOUND_SMTP_HOST: {
    area: 'Inbound SMTP',
    default: '127.0.0.1',
    description: 'address of the SMTP listener for bounces and complaints, and for servers\' inbound mail',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'inboundSmtpHost',
  },
  MAILROOM_INBOUND_SMTP_PORT: {
    area: 'Inbound SMTP',
    default: '2525',
    description: 'port of that listener',
    kind: { type: 'int', min: 0, max: 65535, fallback: 2525 },
    field: 'inboundSmtpPort',
  },
  MAILROOM_INBOUND_DOMAIN: {
    area: 'Inbound SMTP',
    default: 'inbound.<return path domain>',
    description: 'domain of servers\' inbound addresses (`<InboundHash>@` it); point its MX at the listener',
    kind: { type: 'hostname' },
    field: 'inboundDomain',
    derive: (get) => `inbound.${String(get('MAILROOM_RETURN_PATH_DOMAIN'))}`,
  },
  MAILROOM_INBOUND_MAX_MESSAGE_BYTES: {
    area: 'Inbound SMTP',
    default: '10485760 (10 MiB)',
    description: 'largest message the inbound listener takes (65536 to 104857600): advertised as SIZE (RFC 1870), over it `552 5.3.4` naming the size and the limit. See "Inbound processing"',
    kind: { type: 'int', min: 65_536, max: 100 * 1024 * 1024, fallback: 10 * 1024 * 1024 },
    field: 'inboundMaxMessageBytes',
  },
  MAILROOM_INBOUND_SMTP_MAX_CLIENT_CONNECTIONS: {
    area: 'Inbound SMTP',
    default: '10',
    description: 'connections at once from one client address (IPv6: one /64) to the inbound listener, of its 50; more are `421 4.7.0` (docs/operations.md, "SMTP listeners under abuse")',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 10 },
    field: 'inboundSlots.maxPerClient',
  },
  MAILROOM_INBOUND_SMTP_IDLE_SECONDS: {
    area: 'Inbound SMTP',
    default: '120',
    description: 'an inbound connection without progress (an accepted MAIL, RCPT or DATA; NOOP, RSET and HELP do not count) for this long is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 120 },
    field: 'inboundSlots.idleMs',
  },
  MAILROOM_INBOUND_SMTP_SESSION_SECONDS: {
    area: 'Inbound SMTP',
    default: '600',
    description: 'an inbound connection open this long in all is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 600 },
    field: 'inboundSlots.sessionMs',
  },
  MAILROOM_INBOUND_TLS_CERT: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: 'PEM certificate (chain) file for STARTTLS on the inbound SMTP listener; set together with `_KEY`',
    kind: { type: 'tls-cert', key: 'MAILROOM_INBOUND_TLS_KEY' },
    field: 'inboundTls',
  },
  MAILROOM_INBOUND_TLS_KEY: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: 'PEM private key file of that certificate (unencrypted). Both unset: no STARTTLS offered. Read and checked at start (readable, PEM, key matches the certificate)',
    kind: { type: 'tls-key', cert: 'MAILROOM_INBOUND_TLS_CERT' },
  },
  MAILROOM_SPAMD: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: '`host:port` of a SpamAssassin `spamd`; inbound mail gets a spam score and `InboundSpamThreshold` applies, and a message\'s spam check (console, Mailpit `sa-check`) asks it. Unset: no score, nothing is blocked for spam, the spam check answers that it is not configured',
    kind: { type: 'host-port' },
    field: 'spamd',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
