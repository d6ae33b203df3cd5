// Every MAILROOM_* setting, declared once: its area, its default as the README states it, what it does, and
// (for most) its kind. From this table come the names loadConfig accepts (an unknown MAILROOM_* name stops the
// start, naming the nearest declared one), the only names config.ts can read (SettingName), the reading and
// checking of every setting with a kind (src/config-read.ts), and the README's "Configuration" table
// (`npm run settings:readme` rewrites it; test/config-settings.test.ts fails when it is stale).
// One entry per block, grouped by area, so that adding or removing a setting is a change of its own lines.

export interface Setting {
  /** The README groups settings by it. */
  area: string;
  /** As the README shows it: a value, `unset`, or how it is derived. */
  default: string;
  description: string;
  /**
   * How its value is read and checked, by the one generic reader (src/config-read.ts) and in the README's
   * "values" column. Absent: a setting read with others or from a file (TLS files, the relay URL, IP pools,
   * dev SMTP's server, ...) that has a parse function of its own in src/config.ts.
   */
  kind?: SettingKind;
}

/**
 * A setting's type. `fallback` is the value when unset or empty; absent, the setting is null when unset, or
 * (a host name, a URL derived from others) config.ts passes the derived default.
 */
export type SettingKind =
  | { type: 'int'; min: number; max: number; fallback: number }
  | { type: 'bool'; fallback: boolean }
  | { type: 'string'; fallback?: string }
  | { type: 'hostname'; fallback?: string }
  /** An absolute http: or https: URL. */
  | { type: 'url' }
  /** One of `values`, matched without regard to case. */
  | { type: 'enum'; values: readonly string[]; fallback: string }
  /** A bearer token: at least 16 characters, no white space. */
  | { type: 'token' }
  /** IP addresses and CIDR ranges, comma-separated. */
  | { type: 'ip-list' }
  /** A port to listen on (0: any free port), or `off`. */
  | { type: 'port-or-off'; fallback: number | null };

export const SETTINGS = {
  // HTTP
  MAILROOM_HOST: {
    area: 'HTTP',
    default: '127.0.0.1',
    description: 'address of the HTTP listener (API, tracking, confirmation links, console)',
    kind: { type: 'string', fallback: '127.0.0.1' },
  },
  MAILROOM_PORT: {
    area: 'HTTP',
    default: '8080',
    description: 'port of the HTTP listener; `0`: any free port',
    kind: { type: 'int', min: 0, max: 65535, fallback: 8080 },
  },
  MAILROOM_PUBLIC_URL: {
    area: 'HTTP',
    default: 'http://localhost:<MAILROOM_PORT> (:8080 when the port is 0)',
    description: 'base of every link mailroom puts in mail (but those on a domain\'s verified custom tracking host), and the console address printed at first start; its host is the CNAME target of custom tracking domains',
    kind: { type: 'url' },
  },
  MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '60',
    description: 'longest a whole HTTP request may take',
    kind: { type: 'int', min: 1, max: 3600, fallback: 60 },
  },
  MAILROOM_HTTP_HEADERS_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '10',
    description: 'longest the request headers may take (at most the request timeout)',
    kind: { type: 'int', min: 1, max: 3600, fallback: 10 },
  },
  MAILROOM_HTTP_IDLE_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '5',
    description: 'an idle kept-alive connection is closed after this long',
    kind: { type: 'int', min: 1, max: 3600, fallback: 5 },
  },
  MAILROOM_TRUSTED_PROXIES: {
    area: 'HTTP',
    default: 'unset',
    description: 'reverse proxies (IP addresses or CIDR ranges, comma-separated, e.g. `127.0.0.1, 10.0.0.0/8`) whose `X-Forwarded-For` (and `-Proto`, `-Host`) is believed: the client address is found by walking the header right to left past these hops, and is what the console\'s sign-in limits and the request log use. Unset: the header is ignored (docs/operations.md, "Behind a reverse proxy")',
    kind: { type: 'ip-list' },
  },
  MAILROOM_METRICS_TOKEN: {
    area: 'HTTP',
    default: 'unset',
    description: 'when set, `GET /metrics` needs `Authorization: Bearer <token>` (docs/operations.md)',
    kind: { type: 'token' },
  },
  MAILROOM_HTTP_TLS_CERT: {
    area: 'HTTP',
    default: 'unset',
    description: 'PEM certificate (chain) of the HTTP listener, with MAILROOM_HTTP_TLS_KEY (its unencrypted key): `MAILROOM_PORT` then speaks HTTPS only (TLS 1.2 and later), for clients that always build `https://` URLs (Symfony\'s and Laravel\'s Postmark transport, [frameworks.md](frameworks.md)) without a proxy in front; checked at start like the SMTP certificates; `MAILROOM_PUBLIC_URL` then defaults to `https://`',
  },
  MAILROOM_HTTP_TLS_KEY: {
    area: 'HTTP',
    default: 'unset',
    description: 'the unencrypted PEM key of MAILROOM_HTTP_TLS_CERT; both or neither',
  },
  MAILROOM_SHUTDOWN_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '20',
    description: 'SIGTERM drain deadline; then claimed jobs are handed back and the process exits 1',
    kind: { type: 'int', min: 1, max: 3600, fallback: 20 },
  },
  MAILROOM_LOG_LEVEL: {
    area: 'HTTP',
    default: 'info',
    description: 'pino level (`debug` adds a line per request)',
    kind: { type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], fallback: 'info' },
  },
  // Accounts and keys
  MAILROOM_ACCOUNT_TOKEN: {
    area: 'Accounts and keys',
    default: 'unset',
    description: 'bootstrap account token used when the database is empty (scripted setups, CI); at least 16 characters',
    kind: { type: 'token' },
  },
  MAILROOM_SERVER_TOKEN: {
    area: 'Accounts and keys',
    default: 'unset',
    description: 'bootstrap server token used when the database is empty (scripted setups, CI); at least 16 characters',
    kind: { type: 'token' },
  },
  MAILROOM_SECRET_KEY: {
    area: 'Accounts and keys',
    default: 'generated',
    description: 'master key (32+ characters) for signed links and for encrypting DKIM private keys and webhook passwords at rest. Unset: a random key is created in `secret.key` beside the SQLite file (or `./data`). Set it when more than one machine runs mailroom.',
  },
  // Database
  MAILROOM_DATABASE_URL: {
    area: 'Database',
    default: './data/mailroom.db',
    description: 'a file path (SQLite) or `postgres://...` (PostgreSQL)',
  },
  MAILROOM_DATABASE_POOL_SIZE: {
    area: 'Database',
    default: '10',
    description: 'PostgreSQL connections per process',
    kind: { type: 'int', min: 1, max: 1000, fallback: 10 },
  },
  MAILROOM_DATA_REMOVAL_BATCH: {
    area: 'Database',
    default: '500',
    description: 'rows per transaction of a data removal (`POST /data-removals`)',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 500 },
  },
  // Sending
  MAILROOM_SEND_QUEUE_LIMIT: {
    area: 'Sending',
    default: '20000',
    description: 'Messages of send requests (`/email`, batches, template sends, SMTP submission) waiting for their group commit; beyond it a request is refused with 503 `{ErrorCode: 100}` and `Retry-After: 1` instead of queueing without bound. A request larger than the limit is still taken when nothing waits',
    kind: { type: 'int', min: 1, max: 10_000_000, fallback: 20_000 },
  },
  MAILROOM_BOUNCE_TESTING_DOMAIN: {
    area: 'Sending',
    default: 'unset',
    description: 'a black-hole domain for fake bounces besides the hosted service\'s `bounce-testing.postmarkapp.com` (see "Bounces and spam complaints", "Fake bounces")',
    kind: { type: 'hostname' },
  },
  MAILROOM_WEBHOOK_ALLOW_PRIVATE: {
    area: 'Sending',
    default: 'false',
    description: 'allow webhook and InboundHookUrl targets, and the links a message\'s link check requests, that are not globally reachable (loopback, private, documentation ranges, this host\'s own addresses)',
    kind: { type: 'bool', fallback: false },
  },
  // Delivery
  MAILROOM_SMTP_RELAY: {
    area: 'Delivery',
    default: 'unset',
    description: '`smtp://[user:pass@]host:port` (or `smtps://`): deliver through this relay; unset = direct MX delivery',
  },
  MAILROOM_CAPTURE_DIR: {
    area: 'Delivery',
    default: 'unset',
    description: 'a folder: deliver every message (and system mail) to a local capture that writes each one there as an `.eml` file, instead of to the internet (trying mailroom out, "First send" above). Not together with `MAILROOM_SMTP_RELAY`',
  },
  MAILROOM_EHLO_NAME: {
    area: 'Delivery',
    default: 'host name if fully qualified, else the return-path domain',
    description: 'name mailroom gives in EHLO',
    kind: { type: 'string' },
  },
  MAILROOM_IP_POOLS: {
    area: 'Delivery',
    default: 'unset (the OS chooses the source address)',
    description: 'named pools of local source addresses, each with its EHLO name, assigned to servers and streams by `IpPool`: `name=ip[,ip...][@ehlo];...` or JSON. See "Delivery", "IP pools"',
  },
  MAILROOM_DELIVERY_CONCURRENCY: {
    area: 'Delivery',
    default: '64',
    description: 'deliveries in flight per worker process (from claim to recorded outcome); also the most a killed worker makes others send twice ("Crash safety")',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 64 },
  },
  MAILROOM_DELIVERY_DOMAIN_CONCURRENCY: {
    area: 'Delivery',
    default: '16',
    description: 'deliveries in flight per destination domain per worker process',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 16 },
  },
  MAILROOM_DEST_MAX_CONNECTIONS: {
    area: 'Delivery',
    default: '10',
    description: 'SMTP connections at once to one destination (recipient domain) per worker process; fewer while it throttles (see "Delivery")',
    kind: { type: 'int', min: 1, max: 10_000, fallback: 10 },
  },
  MAILROOM_DEST_MAX_RATE: {
    area: 'Delivery',
    default: '0 (none)',
    description: 'messages a minute to one destination per worker process; a throttling destination is slowed below it either way',
    kind: { type: 'int', min: 0, max: 1_000_000, fallback: 0 },
  },
  MAILROOM_DELIVERY_MAX_AGE_HOURS: {
    area: 'Delivery',
    default: '72',
    description: 'a recipient still failing transiently after this long is given up as a SoftBounce',
    kind: { type: 'int', min: 1, max: 24 * 30, fallback: 72 },
  },
  MAILROOM_DELIVERY_LEASE_SECONDS: {
    area: 'Delivery',
    default: '30',
    description: 'lease on a claimed delivery job, renewed every 10 s while it runs; a dead worker\'s jobs return after it',
    kind: { type: 'int', min: 1, max: 86_400, fallback: 30 },
  },
  MAILROOM_TLS_CA_FILE: {
    area: 'Delivery',
    default: 'unset',
    description: 'PEM CA certificate trusted, besides Node\'s bundled roots, when outbound certificates are verified (relay, MTA-STS enforce; see "Delivery")',
  },
  // DNS and domains
  MAILROOM_DNS_SERVERS: {
    area: 'DNS and domains',
    default: 'system',
    description: '`ip[:port],...` used for MX lookups and DNS verification',
  },
  MAILROOM_RETURN_PATH_DOMAIN: {
    area: 'DNS and domains',
    default: 'bounces.localhost',
    description: 'envelope domain for bounces, and the CNAME target a custom Return-Path must point at',
    kind: { type: 'hostname', fallback: 'bounces.localhost' },
  },
  MAILROOM_SPF_INCLUDE: {
    area: 'DNS and domains',
    default: 'spf.<return path domain>',
    description: 'the include SPF verification expects',
    kind: { type: 'hostname' },
  },
  // Inbound SMTP
  MAILROOM_INBOUND_SMTP_HOST: {
    area: 'Inbound SMTP',
    default: '127.0.0.1',
    description: 'address of the SMTP listener for bounces and complaints, and for servers\' inbound mail',
    kind: { type: 'string', fallback: '127.0.0.1' },
  },
  MAILROOM_INBOUND_SMTP_PORT: {
    area: 'Inbound SMTP',
    default: '2525',
    description: 'port of that listener',
    kind: { type: 'int', min: 0, max: 65535, fallback: 2525 },
  },
  MAILROOM_INBOUND_DOMAIN: {
    area: 'Inbound SMTP',
    default: 'inbound.<return path domain>',
    description: 'domain of servers\' inbound addresses (`<InboundHash>@` it); point its MX at the listener',
    kind: { type: 'hostname' },
  },
  MAILROOM_INBOUND_MAX_MESSAGE_BYTES: {
    area: 'Inbound SMTP',
    default: '10485760 (10 MiB)',
    description: 'largest message the inbound listener takes (65536 to 104857600): advertised as SIZE (RFC 1870), over it `552 5.3.4` naming the size and the limit. See "Inbound processing"',
    kind: { type: 'int', min: 65_536, max: 100 * 1024 * 1024, fallback: 10 * 1024 * 1024 },
  },
  MAILROOM_INBOUND_SMTP_MAX_CLIENT_CONNECTIONS: {
    area: 'Inbound SMTP',
    default: '10',
    description: 'connections at once from one client address (IPv6: one /64) to the inbound listener, of its 50; more are `421 4.7.0` (docs/operations.md, "SMTP listeners under abuse")',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 10 },
  },
  MAILROOM_INBOUND_SMTP_IDLE_SECONDS: {
    area: 'Inbound SMTP',
    default: '120',
    description: 'an inbound connection without progress (an accepted MAIL, RCPT or DATA; NOOP, RSET and HELP do not count) for this long is closed with `421 4.7.0`',
    kind: { type: 'int', min: 1, max: 86_400, fallback: 120 },
  },
  MAILROOM_INBOUND_SMTP_SESSION_SECONDS: {
    area: 'Inbound SMTP',
    default: '600',
    description: 'an inbound connection open this long in all is closed with `421 4.7.0`',
    kind: { type: 'int', min: 1, max: 86_400, fallback: 600 },
  },
  MAILROOM_INBOUND_TLS_CERT: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: 'PEM certificate (chain) file for STARTTLS on the inbound SMTP listener; set together with `_KEY`',
  },
  MAILROOM_INBOUND_TLS_KEY: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: 'PEM private key file of that certificate (unencrypted). Both unset: no STARTTLS offered. Read and checked at start (readable, PEM, key matches the certificate)',
  },
  MAILROOM_SPAMD: {
    area: 'Inbound SMTP',
    default: 'unset',
    description: '`host:port` of a SpamAssassin `spamd`; inbound mail gets a spam score and `InboundSpamThreshold` applies, and a message\'s spam check (console, Mailpit `sa-check`) asks it. Unset: no score, nothing is blocked for spam, the spam check answers that it is not configured',
  },
  // Parser threads
  MAILROOM_PARSE_THREADS: {
    area: 'Parser threads',
    default: '0 (one per CPU)',
    description: 'worker threads that parse and authenticate SMTP mail (inbound: MIME, SPF/DKIM/DMARC, the webhook JSON; submission: MIME and the API\'s validation) and inline templates\' CSS, so the event loop keeps answering HTTP and SMTP while a hostile message is parsed or a large template inlined. Each has a 512 MB heap and a 120 s budget per message; a message that passes either is refused like unparseable MIME (`554 5.6.0` inbound, `550 5.6.0` submission), and the thread is replaced',
    kind: { type: 'int', min: 0, max: 256, fallback: 0 },
  },
  MAILROOM_PARSE_THREAD_TASKS: {
    area: 'Parser threads',
    default: '16',
    description: 'messages one parser thread reads at once, within 32 MB of message bytes (a message\'s SPF, DKIM and DMARC checks wait for DNS answers, and a thread reading one at a time idled through them: bench:inbound 236 msg/s against 487); a thread that fails while it reads several answers each of them `451 4.3.2` rather than blaming one',
    kind: { type: 'int', min: 1, max: 256, fallback: 16 },
  },
  MAILROOM_PARSE_QUEUE: {
    area: 'Parser threads',
    default: '256',
    description: 'messages that may wait for a parser thread; one more is answered `451 4.3.2` at the end of DATA (the sender keeps it and retries), so memory stays bounded',
    kind: { type: 'int', min: 0, max: 100_000, fallback: 256 },
  },
  // DMARC reports
  MAILROOM_DMARC_REPORT_ADDRESS: {
    area: 'DMARC reports',
    default: 'dmarc@<inbound domain>',
    description: 'where DMARC aggregate reports are mailed; each domain\'s `rua` is its signed sub-address `<local>+<domain id>.<tag>@<domain>`. Its domain\'s MX must point at the inbound listener. See "DMARC aggregate reports"',
  },
  MAILROOM_DMARC_RETENTION_DAYS: {
    area: 'DMARC reports',
    default: '180',
    description: 'DMARC reports (taken in, refused and kept apart) are deleted this many days after they arrive (7 to 3650), by the retention run',
    kind: { type: 'int', min: 7, max: 3650, fallback: 180 },
  },
  MAILROOM_DMARC_OWN_SOURCES: {
    area: 'DMARC reports',
    default: 'unset',
    description: 'IPs/CIDRs counted as mailroom\'s own sending addresses in DMARC summaries besides the `MAILROOM_IP_POOLS` addresses and this host\'s interfaces: a relay\'s or a NAT\'s public addresses, other hosts of the cluster',
    kind: { type: 'ip-list' },
  },
  // SMTP submission
  MAILROOM_SUBMISSION_HOST: {
    area: 'SMTP submission',
    default: '127.0.0.1',
    description: 'address of the SMTP submission listener (role `api`). See "SMTP submission"',
    kind: { type: 'string', fallback: '127.0.0.1' },
  },
  MAILROOM_SUBMISSION_PORT: {
    area: 'SMTP submission',
    default: '2587',
    description: 'port of the submission listener; `off` turns it off',
    kind: { type: 'port-or-off', fallback: 2587 },
  },
  MAILROOM_SUBMISSION_TLS_CERT: {
    area: 'SMTP submission',
    default: 'unset',
    description: 'PEM certificate for STARTTLS on the submission port (checked at start like the inbound one); set together with `_KEY`. Unset: no STARTTLS',
  },
  MAILROOM_SUBMISSION_TLS_KEY: {
    area: 'SMTP submission',
    default: 'unset',
    description: 'PEM private key file of that certificate (unencrypted)',
  },
  MAILROOM_SUBMISSION_TLS_PORT: {
    area: 'SMTP submission',
    default: 'unset (off)',
    description: 'an implicit-TLS submission port (RFC 8314, usually 465); needs the certificate',
    kind: { type: 'port-or-off', fallback: null },
  },
  MAILROOM_SUBMISSION_ALLOW_INSECURE_AUTH: {
    area: 'SMTP submission',
    default: 'false',
    description: 'allow AUTH without TLS from non-loopback clients (loopback is always allowed)',
    kind: { type: 'bool', fallback: false },
  },
  MAILROOM_SUBMISSION_MAX_CLIENT_CONNECTIONS: {
    area: 'SMTP submission',
    default: '50',
    description: 'submission connections at once from one client address (IPv6: one /64), of 500; more are `421 4.7.0`. Every local application shares 127.0.0.1',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 50 },
  },
  MAILROOM_SUBMISSION_IDLE_SECONDS: {
    area: 'SMTP submission',
    default: '300',
    description: 'a submission connection without progress (an accepted AUTH, MAIL, RCPT or DATA) for this long is closed with `421 4.7.0`',
    kind: { type: 'int', min: 1, max: 86_400, fallback: 300 },
  },
  MAILROOM_SUBMISSION_SESSION_SECONDS: {
    area: 'SMTP submission',
    default: '1800',
    description: 'a submission connection open this long in all is closed with `421 4.7.0`',
    kind: { type: 'int', min: 1, max: 86_400, fallback: 1800 },
  },
  MAILROOM_SUBMISSION_AUTH_SECONDS: {
    area: 'SMTP submission',
    default: '30',
    description: 'a submission connection not authenticated this long after it opened is closed with `421 4.7.0`',
    kind: { type: 'int', min: 1, max: 3600, fallback: 30 },
  },
  MAILROOM_SUBMISSION_MAX_AUTH_FAILURES: {
    area: 'SMTP submission',
    default: '20',
    description: 'wrong tokens in AUTH from one client address within 15 minutes (counted in the database, across processes) after which its AUTH is refused unchecked (`421 4.7.0`) until they age; 0 turns the limit off. A connection is closed at its third failed AUTH either way',
    kind: { type: 'int', min: 0, max: 100_000, fallback: 20 },
  },
  // Development SMTP
  MAILROOM_DEV_SMTP_PORT: {
    area: 'Development SMTP',
    default: 'unset (off)',
    description: 'a development SMTP port taking mail **without AUTH** into one Sandbox server, as Mailpit\'s SMTP port does (role `api`; `0`: any free port). See "SMTP without credentials, for development"',
    kind: { type: 'port-or-off', fallback: null },
  },
  MAILROOM_DEV_SMTP_SERVER: {
    area: 'Development SMTP',
    default: 'unset',
    description: 'the Sandbox server (its name or ID) that port puts mail into; required with the port. A Live, unknown or ambiguous server stops the start naming this variable',
    kind: { type: 'string' },
  },
  MAILROOM_DEV_SMTP_HOST: {
    area: 'Development SMTP',
    default: '127.0.0.1',
    description: 'address of that port; a non-loopback address stops the start unless `MAILROOM_DEV_SMTP_ALLOW_REMOTE=true`',
    kind: { type: 'string', fallback: '127.0.0.1' },
  },
  MAILROOM_DEV_SMTP_ALLOW_REMOTE: {
    area: 'Development SMTP',
    default: 'false',
    description: 'let `MAILROOM_DEV_SMTP_HOST` be a non-loopback address: anyone who reaches it can put mail in the server without a token',
    kind: { type: 'bool', fallback: false },
  },
  // Test inbox (Mailpit's release and webhook)
  MAILROOM_RELEASE_RELAY_HOST: {
    area: 'Test inbox',
    default: 'unset (release refused)',
    description: 'SMTP relay through which Mailpit\'s release (`POST /mailpit/api/v1/message/{ID}/release`, the console\'s Release button) sends a Sandbox message to a real inbox, as Mailpit\'s `MP_SMTP_RELAY_HOST` (docs/test-inbox.md)',
    kind: { type: 'string' },
  },
  MAILROOM_RELEASE_RELAY_PORT: {
    area: 'Test inbox',
    default: '587',
    description: 'port of that relay; 465 when MAILROOM_RELEASE_RELAY_TLS is `tls`',
    kind: { type: 'int', min: 1, max: 65535, fallback: 587 },
  },
  MAILROOM_RELEASE_RELAY_TLS: {
    area: 'Test inbox',
    default: 'starttls',
    description: '`starttls` (required, certificate verified against the system CAs and `MAILROOM_TLS_CA_FILE`), `tls` (implicit TLS, RFC 8314, verified the same way) or `none` (for a relay on a private network: STARTTLS only when offered, its certificate not checked)',
    kind: { type: 'enum', values: ['starttls', 'tls', 'none'], fallback: 'starttls' },
  },
  MAILROOM_RELEASE_RELAY_USER: {
    area: 'Test inbox',
    default: 'unset',
    description: 'AUTH user name at the relay (with MAILROOM_RELEASE_RELAY_PASSWORD; both or neither)',
    kind: { type: 'string' },
  },
  MAILROOM_RELEASE_RELAY_PASSWORD: {
    area: 'Test inbox',
    default: 'unset',
    description: 'AUTH password at the relay',
    kind: { type: 'string' },
  },
  MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS: {
    area: 'Test inbox',
    default: 'unset (any recipient)',
    description: 'comma-separated addresses (`qa@example.com`), domains (`example.com`) and subdomain wildcards (`*.example.com`) a release may go to; any other recipient is refused with 400. Mailpit\'s `MP_SMTP_RELAY_ALLOWED_RECIPIENTS` is a regular expression; this is a plain list',
  },
  MAILROOM_MAILPIT_WEBHOOK_URL: {
    area: 'Test inbox',
    default: 'unset',
    description: 'each new Sandbox message\'s summary (Mailpit\'s message summary JSON) is POSTed here, as Mailpit\'s `MP_WEBHOOK_URL` does; queued with the message and retried with back-off',
    kind: { type: 'url' },
  },
  MAILROOM_MAILPIT_OPEN_SERVER: {
    area: 'Test inbox',
    default: 'unset (Basic authentication required)',
    description: 'name or ID of a Sandbox server: a Mailpit API request (`/mailpit/...`) without an `Authorization` header is served as that server, as stock Mailpit serves its API without credentials, so a test suite configured for Mailpit changes only the host and port. Requests with credentials still select their own server. A Live, unknown or ambiguous server stops the start',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;

export type SettingName = keyof typeof SETTINGS;

export const SETTING_NAMES: ReadonlySet<string> = new Set(Object.keys(SETTINGS));

/** The values a kind takes, as the README's "values" column shows them; empty when the description says. */
export function kindText(kind: SettingKind | undefined): string {
  switch (kind?.type) {
    case 'int':
      return `whole number, ${kind.min} to ${kind.max}`;
    case 'bool':
      return '`true` or `false`';
    case 'string':
      return 'text';
    case 'hostname':
      return 'host name';
    case 'url':
      return 'http(s) URL';
    case 'enum':
      return kind.values.map((v) => `\`${v}\``).join(', ');
    case 'token':
      return '16+ characters, no spaces';
    case 'ip-list':
      return 'IPs and CIDR ranges, comma-separated';
    case 'port-or-off':
      return 'port (0 to 65535) or `off`';
    default:
      return '';
  }
}

/** The README's settings table, generated from SETTINGS. */
export function settingsMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const lines = ['| variable | default | values | meaning |', '|---|---|---|---|'];
  let area = '';
  for (const [name, s] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
    if (s.area !== area) {
      area = s.area;
      lines.push(`| **${cell(area)}** | | | |`);
    }
    // A value is shown as code (it may hold <, * or _); a phrase such as "unset" as text.
    const value = /^(unset|generated|system|host name)\b/.test(s.default) ? s.default : `\`${s.default}\``;
    lines.push(`| ${name} | ${cell(value)} | ${cell(kindText(s.kind))} | ${cell(s.description)} |`);
  }
  return lines.join('\n');
}
