// The test inbox: the relay of Mailpit's release, Mailpit's webhook, the Mailpit API open without
// credentials.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const TEST_INBOX_SETTINGS = {
  MAILROOM_RELEASE_RELAY_HOST: {
    area: 'Test inbox',
    default: 'unset (release refused)',
    description: 'SMTP relay through which Mailpit\'s release (`POST /mailpit/api/v1/message/{ID}/release`, the console\'s Release button) sends a Sandbox message to a real inbox, as Mailpit\'s `MP_SMTP_RELAY_HOST` (docs/test-inbox.md)',
    kind: { type: 'string', trim: true },
    field: 'releaseRelay.host',
    gate: true,
  },
  MAILROOM_RELEASE_RELAY_PORT: {
    area: 'Test inbox',
    default: '587',
    description: 'port of that relay; 465 when MAILROOM_RELEASE_RELAY_TLS is `tls`',
    kind: { type: 'int', min: 1, max: 65535 },
    field: 'releaseRelay.port',
    // Implicit TLS has its own port (RFC 8314 7.3).
    derive: (get) => (get('MAILROOM_RELEASE_RELAY_TLS') === 'tls' ? 465 : 587),
  },
  MAILROOM_RELEASE_RELAY_TLS: {
    area: 'Test inbox',
    default: 'starttls',
    description: '`starttls` (required, certificate verified against the system CAs and `MAILROOM_TLS_CA_FILE`), `tls` (implicit TLS, RFC 8314, verified the same way) or `none` (for a relay on a private network: STARTTLS only when offered, its certificate not checked)',
    kind: { type: 'enum', values: ['starttls', 'tls', 'none'], fallback: 'starttls' },
    field: 'releaseRelay.tls',
  },
  MAILROOM_RELEASE_RELAY_USER: {
    area: 'Test inbox',
    default: 'unset',
    description: 'AUTH user name at the relay (with MAILROOM_RELEASE_RELAY_PASSWORD; both or neither)',
    kind: { type: 'string' },
    field: 'releaseRelay.user',
    check: (user, get) =>
      (user === null) !== (get('MAILROOM_RELEASE_RELAY_PASSWORD') === null) ? 'set both MAILROOM_RELEASE_RELAY_USER and MAILROOM_RELEASE_RELAY_PASSWORD, or neither' : null,
  },
  MAILROOM_RELEASE_RELAY_PASSWORD: {
    area: 'Test inbox',
    default: 'unset',
    description: 'AUTH password at the relay',
    kind: { type: 'string' },
    field: 'releaseRelay.pass',
  },
  MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS: {
    area: 'Test inbox',
    default: 'unset (any recipient)',
    description: 'comma-separated addresses (`qa@example.com`), domains (`example.com`) and subdomain wildcards (`*.example.com`) a release may go to; any other recipient is refused with 400. Mailpit\'s `MP_SMTP_RELAY_ALLOWED_RECIPIENTS` is a regular expression; this is a plain list',
    kind: { type: 'recipient-list' },
    field: 'releaseRelay.allowedRecipients',
  },
  MAILROOM_MAILPIT_WEBHOOK_URL: {
    area: 'Test inbox',
    default: 'unset',
    description: 'each new Sandbox message\'s summary (Mailpit\'s message summary JSON) is POSTed here, as Mailpit\'s `MP_WEBHOOK_URL` does; queued with the message and retried with back-off',
    kind: { type: 'url' },
    field: 'mailpitWebhookUrl',
  },
  MAILROOM_MAILPIT_OPEN_SERVER: {
    area: 'Test inbox',
    default: 'unset (Basic authentication required)',
    description: 'name or ID of a Sandbox server: a Mailpit API request (`/mailpit/...`) without an `Authorization` header is served as that server, as stock Mailpit serves its API without credentials, so a test suite configured for Mailpit changes only the host and port. Requests with credentials still select their own server. A Live, unknown or ambiguous server stops the start',
    kind: { type: 'string', trim: true },
    field: 'mailpitOpenServer',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
