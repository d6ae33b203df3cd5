// The shape of the configuration, below everything that reads it: the composition root (src/config.ts) reads
// MAILROOM_* variables into a Config, and infra, the domain and the edges receive it. Only types live here,
// so that nothing below the root imports the root (docs/architecture.md, "Layers").

/** One of MAILROOM_IP_POOLS (parsed and checked by src/domain/delivery/ip-pools/parse.ts). */
export interface IpPool {
  /** As configured; API values are matched without regard to case. */
  name: string;
  /** Local addresses connections bind to, used in turn (round robin). */
  addresses: string[];
  /** Name sent in EHLO/HELO (RFC 5321 4.1.1.1); null: the service's MAILROOM_EHLO_NAME. */
  ehlo: string | null;
}

export type Role = 'all' | 'api' | 'worker';

export interface DnsServer {
  host: string;
  port: number;
}

export interface SmtpRelay {
  url: string;
  secure: boolean;
  host: string;
  port: number;
  user?: string;
  pass?: string;
}

/** MAILROOM_RELEASE_RELAY_*: where Mailpit's release sends a captured message (domain/mailpit/release.ts). */
export interface ReleaseRelay {
  host: string;
  port: number;
  /** `starttls`: STARTTLS is required (RFC 3207); `tls`: implicit TLS (RFC 8314); `none`: plaintext. */
  tls: 'starttls' | 'tls' | 'none';
  auth?: { user: string; pass: string };
  /** Lower-case addresses, domains and `*.domain` entries a release may go to; empty: any recipient. */
  allowedRecipients: string[];
}

/** PEM certificate chain and private key the inbound SMTP listener offers through STARTTLS (RFC 3207). */
export interface InboundTls {
  certPath: string;
  keyPath: string;
  cert: string;
  key: string;
}

/** The SMTP submission listener (src/smtp-listeners/submission-listener.ts), run by the role answering HTTP. */
export interface SubmissionConfig {
  host: string;
  /** MAILROOM_SUBMISSION_PORT (plain, with STARTTLS when a certificate is set); null: `off`. */
  port: number | null;
  /** MAILROOM_SUBMISSION_TLS_PORT: implicit TLS (RFC 8314 3.3); null: none. Needs the certificate. */
  tlsPort: number | null;
  /** MAILROOM_SUBMISSION_TLS_CERT / _KEY. */
  tls: InboundTls | null;
  /** MAILROOM_SUBMISSION_ALLOW_INSECURE_AUTH: AUTH in clear text from non-loopback clients. */
  allowInsecureAuth: boolean;
  /** MAILROOM_SUBMISSION_MAX_CLIENT_CONNECTIONS, _IDLE_SECONDS, _SESSION_SECONDS, _AUTH_SECONDS. */
  slots: SmtpSlotLimits;
  /** MAILROOM_SUBMISSION_MAX_AUTH_FAILURES: failed AUTH per client address in 15 minutes before AUTH is refused unchecked; 0: no limit. */
  maxAuthFailures: number;
}

/** The SMTP listener that takes mail without AUTH into one Sandbox server, as Mailpit's SMTP port does. */
export interface DevSmtpConfig {
  /** MAILROOM_DEV_SMTP_HOST: loopback unless `allowRemote`. */
  host: string;
  /** MAILROOM_DEV_SMTP_PORT (0: any free port). */
  port: number;
  /** MAILROOM_DEV_SMTP_SERVER: the server's name or ID; checked to be a Sandbox server at start. */
  server: string;
  /** MAILROOM_DEV_SMTP_ALLOW_REMOTE: listen on a non-loopback address. */
  allowRemote: boolean;
}

/** How long and how many connections one client may hold on an SMTP listener (smtp-listeners/client-slots.ts). */
export interface SmtpSlotLimits {
  /** Connections at once from one client address (IPv6: one /64). */
  maxPerClient: number;
  /** A connection without progress (an accepted MAIL, RCPT, DATA or AUTH) for this long is closed. */
  idleMs: number;
  /** A connection is closed this long after it opened, whatever it does. */
  sessionMs: number;
  /** A connection not authenticated this long after it opened is closed; null: AUTH is not expected. */
  authMs: number | null;
}

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  publicUrl: string;
  smtpRelay: SmtpRelay | null;
  /** MAILROOM_CAPTURE_DIR: deliver everything to a local capture writing .eml files here (smtp-listeners/capture-listener.ts). */
  captureDir: string | null;
  /** Port of direct MX delivery: 25, fixed by SMTP; tests override it on the Config to reach a loopback sink. */
  mxPort: number;
  inboundSmtpHost: string;
  inboundSmtpPort: number;
  /** MAILROOM_INBOUND_TLS_CERT / _KEY; null: the listener offers no STARTTLS. */
  inboundTls: InboundTls | null;
  /** MAILROOM_INBOUND_SMTP_MAX_CLIENT_CONNECTIONS, _IDLE_SECONDS, _SESSION_SECONDS. */
  inboundSlots: SmtpSlotLimits;
  /** MAILROOM_INBOUND_DOMAIN: servers' inbound addresses are <InboundHash>[+<MailboxHash>]@this domain. */
  inboundDomain: string;
  /** MAILROOM_INBOUND_MAX_MESSAGE_BYTES: the SIZE the inbound listener advertises (RFC 1870) and enforces. */
  inboundMaxMessageBytes: number;
  /** MAILROOM_PARSE_THREADS: worker threads that parse and authenticate SMTP mail and inline templates' CSS
   * (infra/threads); 0: one per CPU (os.availableParallelism()). */
  parseThreads: number;
  /** MAILROOM_PARSE_QUEUE: messages that may wait for a parser thread; one more is answered 451 4.3.2. */
  parseQueue: number;
  /** MAILROOM_PARSE_THREAD_TASKS: messages one parser thread reads at once (they wait for DNS between steps),
   * within 32 MB of message bytes per thread. */
  parseThreadTasks: number;
  /** MAILROOM_SPAMD (host:port of a SpamAssassin spamd); null: inbound mail gets no spam score. */
  spamd: { host: string; port: number } | null;
  dnsServers: DnsServer[] | null;
  returnPathDomain: string;
  spfInclude: string;
  webhookAllowPrivate: boolean;
  /**
   * MAILROOM_TRUSTED_PROXIES: addresses and CIDR ranges of reverse proxies whose X-Forwarded-For is believed
   * (walked right to left, skipping these hops); [] = the socket's peer is the client.
   */
  trustedProxies: string[];
  accountToken: string | null;
  serverToken: string | null;
  logLevel: string;
  /** Key material for link signatures and encryption at rest; see secret-key.ts. */
  secretKey: string | null;
  /** Delivery tuning: jobs in flight per worker process, and per destination domain. */
  deliveryConcurrency: number;
  deliveryDomainConcurrency: number;
  /**
   * Pacing per destination (src/domain/delivery/pacing): SMTP connections at once to one recipient domain, and
   * messages a minute to it (0: no fixed limit), per worker process; a throttling reply lowers both for a while.
   */
  destMaxConnections: number;
  destMaxRatePerMinute: number;
  /** Give up on a transiently failing recipient after this many hours (then a SoftBounce). */
  deliveryMaxAgeHours: number;
  /** MAILROOM_EHLO_NAME; null: the host name when fully qualified, else the return-path domain. */
  ehloName: string | null;
  /** MAILROOM_DELIVERY_LEASE_SECONDS, in ms. */
  deliveryLeaseMs: number;
  /** MAILROOM_DATA_REMOVAL_BATCH: rows per transaction of a data removal. */
  dataRemovalBatch: number;
  /** MAILROOM_BOUNCE_TESTING_DOMAIN: a black-hole domain besides the hosted service's (delivery/bounce-testing.ts); null: none. */
  bounceTestingDomain: string | null;
  /** MAILROOM_DEV_SMTP_*: the credential-less development listener (smtp-listeners/dev-smtp-listener.ts); null: off. */
  devSmtp: DevSmtpConfig | null;
  /** MAILROOM_RELEASE_RELAY_*: the relay of Mailpit's release; null: release is refused. */
  releaseRelay: ReleaseRelay | null;
  /** MAILROOM_MAILPIT_WEBHOOK_URL: each new Sandbox message's summary is POSTed here (domain/mailpit/webhook.ts). */
  mailpitWebhookUrl: string | null;
  /** MAILROOM_MAILPIT_OPEN_SERVER: the Sandbox server (name or ID) Mailpit API requests without credentials are served as; null: Basic authentication required. */
  mailpitOpenServer: string | null;
  /** PostgreSQL connections per process (MAILROOM_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** Messages of send requests waiting for their group commit (queued or being written) beyond which a send
   * request is refused with 503 and Retry-After (MAILROOM_SEND_QUEUE_LIMIT). */
  sendQueueLimit: number;
  /**
   * HTTP limits: the whole request (headers and body) must arrive within requestTimeoutMs, the headers within
   * headersTimeoutMs, and a kept-alive connection is closed after idleTimeoutMs without a request.
   */
  http: { requestTimeoutMs: number; headersTimeoutMs: number; idleTimeoutMs: number };
  /** MAILROOM_HTTP_TLS_CERT / _KEY: the API port speaks HTTPS with this certificate; null: plain HTTP. */
  httpTls: InboundTls | null;
  /** SIGTERM: how long to drain (HTTP requests, SMTP transactions, jobs in flight) before exiting anyway. */
  shutdownTimeoutMs: number;
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  submission: SubmissionConfig;
  /** MAILROOM_TLS_CA_FILE: extra CA certificates (PEM) trusted for outbound TLS, besides Node's bundled roots. */
  tlsCa: { path: string; pem: string } | null;
  /** HTTPS port of MTA-STS policy hosts: 443 (RFC 8461 3.3); tests override it on the Config to reach a loopback server. */
  mtaStsPort: number;
  /** MAILROOM_IP_POOLS: named source addresses (and EHLO names) for delivery; [] = the OS chooses. */
  ipPools: IpPool[];
  dmarc: DmarcConfig;
}

/** DMARC aggregate reports (domain/dmarc/). */
export interface DmarcConfig {
  /** MAILROOM_DMARC_REPORT_ADDRESS (default dmarc@<inbound domain>), split; each domain's rua is
   * <local>+<domain tag>@<domain> (domain/dmarc/report-address.ts). */
  reportLocal: string;
  reportDomain: string;
  /** MAILROOM_DMARC_RETENTION_DAYS: reports are deleted this long after they arrive. */
  retentionDays: number;
  /** MAILROOM_DMARC_OWN_SOURCES: IPs/CIDRs that are mailroom's own sending addresses besides the IP pools'
   * and this host's (a relay's or a NAT's public address). */
  ownSources: string[];
}
