// The SMTP submission listener (role `api`): address, ports, TLS, AUTH and per-client limits.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const SUBMISSION_SETTINGS = {
  MAILROOM_SUBMISSION_HOST: {
    area: 'SMTP submission',
    default: '127.0.0.1',
    description: 'address of the SMTP submission listener (role `api`). See "SMTP submission"',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'submission.host',
  },
  MAILROOM_SUBMISSION_PORT: {
    area: 'SMTP submission',
    default: '2587',
    description: 'port of the submission listener; `off` turns it off',
    kind: { type: 'port-or-off', fallback: 2587 },
    field: 'submission.port',
  },
  MAILROOM_SUBMISSION_TLS_CERT: {
    area: 'SMTP submission',
    default: 'unset',
    description: 'PEM certificate for STARTTLS on the submission port (checked at start like the inbound one); set together with `_KEY`. Unset: no STARTTLS',
    kind: { type: 'tls-cert', key: 'MAILROOM_SUBMISSION_TLS_KEY' },
    field: 'submission.tls',
  },
  MAILROOM_SUBMISSION_TLS_KEY: {
    area: 'SMTP submission',
    default: 'unset',
    description: 'PEM private key file of that certificate (unencrypted)',
    kind: { type: 'tls-key', cert: 'MAILROOM_SUBMISSION_TLS_CERT' },
  },
  MAILROOM_SUBMISSION_TLS_PORT: {
    area: 'SMTP submission',
    default: 'unset (off)',
    description: 'an implicit-TLS submission port (RFC 8314, usually 465); needs the certificate',
    kind: { type: 'port-or-off', fallback: null },
    field: 'submission.tlsPort',
    check: (port, get) => (port !== null && get('MAILROOM_SUBMISSION_TLS_CERT') === null ? 'needs MAILROOM_SUBMISSION_TLS_CERT and _KEY' : null),
  },
  MAILROOM_SUBMISSION_ALLOW_INSECURE_AUTH: {
    area: 'SMTP submission',
    default: 'false',
    description: 'allow AUTH without TLS from non-loopback clients (loopback is always allowed)',
    kind: { type: 'bool', fallback: false },
    field: 'submission.allowInsecureAuth',
  },
  MAILROOM_SUBMISSION_MAX_CLIENT_CONNECTIONS: {
    area: 'SMTP submission',
    default: '50',
    description: 'submission connections at once from one client address (IPv6: one /64), of 500; more are `421 4.7.0`. Every local application shares 127.0.0.1',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 50 },
    field: 'submission.slots.maxPerClient',
  },
  MAILROOM_SUBMISSION_IDLE_SECONDS: {
    area: 'SMTP submission',
    default: '300',
    description: 'a submission connection without progress (an accepted AUTH, MAIL, RCPT or DATA) for this long is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 300 },
    field: 'submission.slots.idleMs',
  },
  MAILROOM_SUBMISSION_SESSION_SECONDS: {
    area: 'SMTP submission',
    default: '1800',
    description: 'a submission connection open this long in all is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 86_400, fallback: 1800 },
    field: 'submission.slots.sessionMs',
  },
  MAILROOM_SUBMISSION_AUTH_SECONDS: {
    area: 'SMTP submission',
    default: '30',
    description: 'a submission connection not authenticated this long after it opened is closed with `421 4.7.0`',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 30 },
    field: 'submission.slots.authMs',
  },
  MAILROOM_SUBMISSION_MAX_AUTH_FAILURES: {
    area: 'SMTP submission',
    default: '20',
    description: 'wrong tokens in AUTH from one client address within 15 minutes (counted in the database, across processes) after which its AUTH is refused unchecked (`421 4.7.0`) until they age; 0 turns the limit off. A connection is closed at its third failed AUTH either way',
    kind: { type: 'int', min: 0, max: 100_000, fallback: 20 },
    field: 'submission.maxAuthFailures',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
