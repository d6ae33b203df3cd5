// The HTTP listener (API, tracking, console): where it listens, its timeouts and TLS, the proxies it
// believes, the metrics token, and the process's shutdown deadline and log level.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const HTTP_SETTINGS = {
  MAILROOM_HOST: {
    area: 'HTTP',
    default: '127.0.0.1',
    description: 'address of the HTTP listener (API, tracking, confirmation links, console)',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'host',
  },
  MAILROOM_PORT: {
    area: 'HTTP',
    default: '8080',
    description: 'port of the HTTP listener; `0`: any free port',
    kind: { type: 'int', min: 0, max: 65535, fallback: 8080 },
    field: 'port',
  },
  MAILROOM_PUBLIC_URL: {
    area: 'HTTP',
    default: 'http://localhost:<MAILROOM_PORT> (:8080 when the port is 0)',
    description: 'base of every link mailroom puts in mail (but those on a domain\'s verified custom tracking host), and the console address printed at first start; its host is the CNAME target of custom tracking domains',
    kind: { type: 'url', base: true },
    field: 'publicUrl',
    // Port 0 (any free port) is known only once bound, so the links keep 8080 then.
    derive: (get) => `${get('MAILROOM_HTTP_TLS_CERT') ? 'https' : 'http'}://localhost:${get('MAILROOM_PORT') === 0 ? 8080 : String(get('MAILROOM_PORT'))}`,
  },
  MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '60',
    description: 'longest a whole HTTP request may take',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 60 },
    field: 'http.requestTimeoutMs',
  },
  MAILROOM_HTTP_HEADERS_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '10',
    description: 'longest the request headers may take (at most the request timeout)',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 10, atMost: 'MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS' },
    field: 'http.headersTimeoutMs',
  },
  MAILROOM_HTTP_IDLE_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '5',
    description: 'an idle kept-alive connection is closed after this long',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 5 },
    field: 'http.idleTimeoutMs',
  },
  MAILROOM_TRUSTED_PROXIES: {
    area: 'HTTP',
    default: 'unset',
    description: 'reverse proxies (IP addresses or CIDR ranges, comma-separated, e.g. `127.0.0.1, 10.0.0.0/8`) whose `X-Forwarded-For` (and `-Proto`, `-Host`) is believed: the client address is found by walking the header right to left past these hops, and is what the console\'s sign-in limits and the request log use. Unset: the header is ignored (docs/operations.md, "Behind a reverse proxy")',
    kind: { type: 'ip-list' },
    field: 'trustedProxies',
  },
  MAILROOM_METRICS_TOKEN: {
    area: 'HTTP',
    default: 'unset',
    description: 'when set, `GET /metrics` needs `Authorization: Bearer <token>` (docs/operations.md)',
    kind: { type: 'token' },
    field: 'metricsToken',
  },
  MAILROOM_HTTP_TLS_CERT: {
    area: 'HTTP',
    default: 'unset',
    description: 'PEM certificate (chain) of the HTTP listener, with MAILROOM_HTTP_TLS_KEY (its unencrypted key): `MAILROOM_PORT` then speaks HTTPS only (TLS 1.2 and later), for clients that always build `https://` URLs (Symfony\'s and Laravel\'s Postmark transport, [frameworks.md](frameworks.md)) without a proxy in front; checked at start like the SMTP certificates; `MAILROOM_PUBLIC_URL` then defaults to `https://`',
    kind: { type: 'tls-cert', key: 'MAILROOM_HTTP_TLS_KEY' },
    field: 'httpTls',
  },
  MAILROOM_HTTP_TLS_KEY: {
    area: 'HTTP',
    default: 'unset',
    description: 'the unencrypted PEM key of MAILROOM_HTTP_TLS_CERT; both or neither',
    kind: { type: 'tls-key', cert: 'MAILROOM_HTTP_TLS_CERT' },
  },
  MAILROOM_SHUTDOWN_TIMEOUT_SECONDS: {
    area: 'HTTP',
    default: '20',
    description: 'SIGTERM drain deadline; then claimed jobs are handed back and the process exits 1',
    kind: { type: 'seconds', min: 1, max: 3600, fallback: 20 },
    field: 'shutdownTimeoutMs',
  },
  MAILROOM_LOG_LEVEL: {
    area: 'HTTP',
    default: 'info',
    description: 'pino level (`debug` adds a line per request)',
    kind: { type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], fallback: 'info' },
    field: 'logLevel',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
