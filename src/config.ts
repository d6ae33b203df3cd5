// Typed configuration read once from the environment. Every variable is optional; a bad value stops the
// process with a message naming the variable (see docs/settings.md).
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConfigError, type Env, HOSTNAME, setting } from './config-read.js';
import { nearestName, unknownVariables } from './config-unknown.js';
import { IpPoolsError, parseIpPools } from './domain/delivery/ip-pools/parse.js';
import type { Config, DnsServer, InboundTls, IpPool, SmtpRelay, SmtpSlotLimits, SubmissionConfig } from './infra/config-types.js';
import { SETTING_NAMES, type SettingName } from './settings.js';

export { ConfigError } from './config-read.js';
export type { Config, DnsServer, InboundTls, IpPool, Role, SmtpRelay, SmtpSlotLimits, SubmissionConfig } from './infra/config-types.js';

function parseRelay(env: Env): SmtpRelay | null {
  const name = 'MAILROOM_SMTP_RELAY';
  const v = env[name];
  if (v === undefined || v === '') return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(name, 'expected smtp://[user:pass@]host:port or smtps://...');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(name, `unsupported scheme ${u.protocol}`);
  if (!u.hostname) throw new ConfigError(name, 'missing host');
  const secure = u.protocol === 'smtps:';
  return {
    url: v,
    secure,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    pass: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

function parseCaptureDir(env: Env): string | null {
  const v = env.MAILROOM_CAPTURE_DIR;
  if (v === undefined || v.trim() === '') return null;
  // Both set would leave one of them silently ignored: which one delivers must be plain.
  if (env.MAILROOM_SMTP_RELAY) throw new ConfigError('MAILROOM_CAPTURE_DIR', 'set either it or MAILROOM_SMTP_RELAY, not both');
  return v.trim();
}

function parseDnsServers(env: Env): DnsServer[] | null {
  const name = 'MAILROOM_DNS_SERVERS';
  const v = env[name];
  if (v === undefined || v.trim() === '' || v.trim() === 'system') return null;
  return v.split(',').map((part) => {
    const s = part.trim();
    // ip, ip:port, [v6]:port
    const m = /^\[([0-9a-f:.]+)\](?::(\d+))?$/i.exec(s) ?? /^([0-9.]+)(?::(\d+))?$/.exec(s) ?? /^([0-9a-f:]+)$/i.exec(s);
    if (!m) throw new ConfigError(name, `not an ip[:port]: ${JSON.stringify(s)}`);
    const port = m[2] ? Number(m[2]) : 53;
    if (port < 1 || port > 65535) throw new ConfigError(name, `bad port in ${JSON.stringify(s)}`);
    return { host: m[1], port };
  });
}

function parseDatabaseUrl(env: Env): string {
  const v = env.MAILROOM_DATABASE_URL || './data/mailroom.db';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !/^postgres(ql)?:\/\//i.test(v) && !/^file:\/\//i.test(v)) {
    throw new ConfigError('MAILROOM_DATABASE_URL', 'expected a file path (SQLite) or postgres://...');
  }
  return v;
}

/**
 * MAILROOM_INBOUND_TLS_CERT and MAILROOM_INBOUND_TLS_KEY: both or neither. The files are read and checked
 * here, at start, so that a wrong path, a file that is not PEM, or a key that does not belong to the
 * certificate stops the process instead of failing each STARTTLS handshake later.
 */
function parseInboundTls(env: Env, CERT: SettingName = 'MAILROOM_INBOUND_TLS_CERT', KEY: SettingName = 'MAILROOM_INBOUND_TLS_KEY'): InboundTls | null {
  const certPath = env[CERT] ?? '';
  const keyPath = env[KEY] ?? '';
  if (!certPath && !keyPath) return null;
  if (!certPath) throw new ConfigError(CERT, `must be set together with ${KEY}`);
  if (!keyPath) throw new ConfigError(KEY, `must be set together with ${CERT}`);
  const read = (name: string, path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(name, `cannot read ${JSON.stringify(path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const cert = read(CERT, certPath);
  const key = read(KEY, keyPath);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new ConfigError(CERT, `${JSON.stringify(certPath)} is not a PEM certificate`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(KEY, `${JSON.stringify(keyPath)} is not a PEM private key (an encrypted key is not supported)`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ConfigError(KEY, `${JSON.stringify(keyPath)} is not the private key of ${JSON.stringify(certPath)}`);
  return { certPath, keyPath, cert, key };
}

function httpTimeouts(env: Env): Config['http'] {
  const requestTimeoutMs = setting(env, 'MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS') * 1000;
  // Node requires the headers timeout not to exceed the request timeout.
  const headersTimeoutMs = Math.min(setting(env, 'MAILROOM_HTTP_HEADERS_TIMEOUT_SECONDS') * 1000, requestTimeoutMs);
  const idleTimeoutMs = setting(env, 'MAILROOM_HTTP_IDLE_TIMEOUT_SECONDS') * 1000;
  return { requestTimeoutMs, headersTimeoutMs, idleTimeoutMs };
}

function parseSubmission(env: Env): SubmissionConfig {
  const tls = parseInboundTls(env, 'MAILROOM_SUBMISSION_TLS_CERT', 'MAILROOM_SUBMISSION_TLS_KEY');
  const tlsPort = setting(env, 'MAILROOM_SUBMISSION_TLS_PORT');
  if (tlsPort !== null && !tls) throw new ConfigError('MAILROOM_SUBMISSION_TLS_PORT', 'needs MAILROOM_SUBMISSION_TLS_CERT and _KEY');
  return {
    host: setting(env, 'MAILROOM_SUBMISSION_HOST'),
    port: setting(env, 'MAILROOM_SUBMISSION_PORT'),
    tlsPort,
    tls,
    allowInsecureAuth: setting(env, 'MAILROOM_SUBMISSION_ALLOW_INSECURE_AUTH'),
    slots: {
      ...smtpSlots(env, 'MAILROOM_SUBMISSION'),
      authMs: setting(env, 'MAILROOM_SUBMISSION_AUTH_SECONDS') * 1000,
    },
    maxAuthFailures: setting(env, 'MAILROOM_SUBMISSION_MAX_AUTH_FAILURES'),
  };
}

/** A host that is a loopback address (or `localhost`): nothing beyond this machine can connect. */
function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'));
}

/**
 * MAILROOM_DEV_SMTP_PORT turns on the credential-less listener; it needs MAILROOM_DEV_SMTP_SERVER, and a
 * non-loopback MAILROOM_DEV_SMTP_HOST only with MAILROOM_DEV_SMTP_ALLOW_REMOTE=true: anyone who can reach the
 * port can put mail in the server without a token.
 */
function parseDevSmtp(env: Env): Config['devSmtp'] {
  const port = setting(env, 'MAILROOM_DEV_SMTP_PORT');
  const host = setting(env, 'MAILROOM_DEV_SMTP_HOST');
  const server = (setting(env, 'MAILROOM_DEV_SMTP_SERVER') ?? '').trim();
  const allowRemote = setting(env, 'MAILROOM_DEV_SMTP_ALLOW_REMOTE');
  if (port === null) return null;
  if (!server) throw new ConfigError('MAILROOM_DEV_SMTP_SERVER', 'MAILROOM_DEV_SMTP_PORT is set: name the Sandbox server (its name or ID) that takes the mail');
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new ConfigError('MAILROOM_DEV_SMTP_HOST', `${JSON.stringify(host)} is not a loopback address: the listener takes mail without credentials; set MAILROOM_DEV_SMTP_ALLOW_REMOTE=true to listen there anyway`);
  }
  return { host, port, server, allowRemote };
}

/** An entry of MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS: an address, a domain, or `*.` and a domain. */
const ALLOWED_ENTRY = /^(?:[^\s@,]+@)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*$/i;

/** MAILROOM_RELEASE_RELAY_HOST turns Mailpit's release on; the other MAILROOM_RELEASE_RELAY_* settings shape it. */
function parseReleaseRelay(env: Env): Config['releaseRelay'] {
  // Every setting is read (and checked) even with no host: a mistake shows at start, not at the first release.
  const host = (setting(env, 'MAILROOM_RELEASE_RELAY_HOST') ?? '').trim();
  const user = setting(env, 'MAILROOM_RELEASE_RELAY_USER') ?? '';
  const pass = setting(env, 'MAILROOM_RELEASE_RELAY_PASSWORD') ?? '';
  const tls = setting(env, 'MAILROOM_RELEASE_RELAY_TLS');
  // Implicit TLS has its own port (RFC 8314 7.3).
  const port = setting(env, 'MAILROOM_RELEASE_RELAY_PORT', tls === 'tls' ? 465 : 587);
  if ((user === '') !== (pass === '')) throw new ConfigError('MAILROOM_RELEASE_RELAY_USER', 'set both MAILROOM_RELEASE_RELAY_USER and MAILROOM_RELEASE_RELAY_PASSWORD, or neither');
  const allowed = (env.MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  for (const e of allowed) {
    if (e.length > 320 || !ALLOWED_ENTRY.test(e)) throw new ConfigError('MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS', `not an address, a domain or *.domain: ${JSON.stringify(e)}`);
  }
  if (!host) return null;
  return { host, port, tls, ...(user ? { auth: { user, pass } } : {}), allowedRecipients: allowed };
}

/** <prefix>_MAX_CLIENT_CONNECTIONS, _IDLE_SECONDS and _SESSION_SECONDS of an SMTP listener. */
function smtpSlots(env: Env, prefix: 'MAILROOM_INBOUND_SMTP' | 'MAILROOM_SUBMISSION'): SmtpSlotLimits {
  return {
    maxPerClient: setting(env, `${prefix}_MAX_CLIENT_CONNECTIONS`),
    idleMs: setting(env, `${prefix}_IDLE_SECONDS`) * 1000,
    sessionMs: setting(env, `${prefix}_SESSION_SECONDS`) * 1000,
    authMs: null,
  };
}

/** MAILROOM_SPAMD: "host:port" (IPv6 as "[::1]:783") of a spamd speaking SPAMC/1.5. */
function parseSpamd(env: Env): { host: string; port: number } | null {
  const name = 'MAILROOM_SPAMD';
  const v = (env[name] ?? '').trim();
  if (v === '') return null;
  const m = /^\[([0-9a-f:.]+)\]:(\d+)$/i.exec(v) ?? /^([a-z0-9.-]+):(\d+)$/i.exec(v);
  if (!m) throw new ConfigError(name, `expected host:port, got ${JSON.stringify(v)}`);
  const port = Number(m[2]);
  if (port < 1 || port > 65535) throw new ConfigError(name, `bad port in ${JSON.stringify(v)}`);
  return { host: m[1], port };
}

/** MAILROOM_TLS_CA_FILE: read and checked at start, so a wrong path stops the process, not each delivery. */
function parseTlsCa(env: Env): Config['tlsCa'] {
  const name = 'MAILROOM_TLS_CA_FILE';
  const path = env[name] ?? '';
  if (!path) return null;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(name, `cannot read ${JSON.stringify(path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    new X509Certificate(pem);
  } catch {
    throw new ConfigError(name, `${JSON.stringify(path)} is not a PEM certificate`);
  }
  return { path, pem };
}

/** DMARC aggregate reports (domain/dmarc/): where reports are mailed, how long they are kept, and
 * the addresses besides the IP pools' and this host's own that count as mailroom's own sources. */
function parseDmarc(env: Env, inboundDomain: string): Config['dmarc'] {
  const name = 'MAILROOM_DMARC_REPORT_ADDRESS';
  const address = (env[name] || `dmarc@${inboundDomain}`).toLowerCase();
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  // The local part gets +<domain tag> appended (report-address.ts): a plain dot-atom without '+'.
  if (at <= 0 || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(local) || local.length > 40 || !HOSTNAME.test(domain)) {
    throw new ConfigError(name, `expected an address like dmarc@${inboundDomain} (letters, digits, '.', '_' or '-' before the @, no '+'), got ${JSON.stringify(address)}`);
  }
  return {
    reportLocal: local,
    reportDomain: domain,
    retentionDays: setting(env, 'MAILROOM_DMARC_RETENTION_DAYS'),
    ownSources: setting(env, 'MAILROOM_DMARC_OWN_SOURCES'),
  };
}

function ipPools(env: Env): IpPool[] {
  try {
    return parseIpPools(env.MAILROOM_IP_POOLS);
  } catch (err) {
    if (err instanceof IpPoolsError) throw new ConfigError('MAILROOM_IP_POOLS', err.message);
    throw err;
  }
}

/**
 * Reads the configuration; an unknown MAILROOM_* variable (a misspelling) stops the start naming the nearest
 * declared one. The declared names are src/settings.ts's table, the only names the readers below accept.
 */
export function loadConfig(env: Env = process.env): Config {
  const config = readConfig(env);
  const unknown = unknownVariables(env, SETTING_NAMES);
  if (unknown.length > 0) {
    const name = unknown[0];
    throw new ConfigError(name, `unknown setting (did you mean ${nearestName(name, SETTING_NAMES)}?)`);
  }
  return config;
}

function readConfig(env: Env): Config {
  const returnPathDomain = setting(env, 'MAILROOM_RETURN_PATH_DOMAIN');
  const secretKey = env.MAILROOM_SECRET_KEY ? env.MAILROOM_SECRET_KEY : null;
  if (secretKey !== null && secretKey.length < 32) throw new ConfigError('MAILROOM_SECRET_KEY', 'needs at least 32 characters');
  const port = setting(env, 'MAILROOM_PORT');
  const inboundDomain = setting(env, 'MAILROOM_INBOUND_DOMAIN', `inbound.${returnPathDomain}`);
  // Clients whose URL scheme is fixed to https (Symfony's Postmark bridge, which Laravel uses) reach the API
  // without a TLS proxy in front; the certificate is checked at start like the SMTP listeners' ones.
  const httpTls = parseInboundTls(env, 'MAILROOM_HTTP_TLS_CERT', 'MAILROOM_HTTP_TLS_KEY');
  return {
    host: setting(env, 'MAILROOM_HOST'),
    port,
    databaseUrl: parseDatabaseUrl(env),
    // The links in mail and the console address printed at first start follow the port the API listens on;
    // port 0 (any free port) is known only once bound, so it keeps 8080 there (set MAILROOM_PUBLIC_URL).
    publicUrl: setting(env, 'MAILROOM_PUBLIC_URL', `${httpTls ? 'https' : 'http'}://localhost:${port === 0 ? 8080 : port}`).replace(/\/+$/, ''),
    smtpRelay: parseRelay(env),
    captureDir: parseCaptureDir(env),
    // Not settings: the port of MX delivery is SMTP's 25 (RFC 5321) and MTA-STS's is 443 (RFC 8461 3.3); only
    // tests, pointing delivery at loopback servers, override them on the Config they build.
    mxPort: 25,
    inboundSmtpHost: setting(env, 'MAILROOM_INBOUND_SMTP_HOST'),
    inboundSmtpPort: setting(env, 'MAILROOM_INBOUND_SMTP_PORT'),
    inboundTls: parseInboundTls(env),
    inboundSlots: smtpSlots(env, 'MAILROOM_INBOUND_SMTP'),
    inboundDomain,
    inboundMaxMessageBytes: setting(env, 'MAILROOM_INBOUND_MAX_MESSAGE_BYTES'),
    parseThreads: setting(env, 'MAILROOM_PARSE_THREADS'),
    parseQueue: setting(env, 'MAILROOM_PARSE_QUEUE'),
    parseThreadTasks: setting(env, 'MAILROOM_PARSE_THREAD_TASKS'),
    spamd: parseSpamd(env),
    dnsServers: parseDnsServers(env),
    returnPathDomain,
    spfInclude: setting(env, 'MAILROOM_SPF_INCLUDE', `spf.${returnPathDomain}`),
    webhookAllowPrivate: setting(env, 'MAILROOM_WEBHOOK_ALLOW_PRIVATE'),
    trustedProxies: setting(env, 'MAILROOM_TRUSTED_PROXIES'),
    accountToken: setting(env, 'MAILROOM_ACCOUNT_TOKEN'),
    serverToken: setting(env, 'MAILROOM_SERVER_TOKEN'),
    logLevel: setting(env, 'MAILROOM_LOG_LEVEL'),
    secretKey,
    deliveryConcurrency: setting(env, 'MAILROOM_DELIVERY_CONCURRENCY'),
    deliveryDomainConcurrency: setting(env, 'MAILROOM_DELIVERY_DOMAIN_CONCURRENCY'),
    destMaxConnections: setting(env, 'MAILROOM_DEST_MAX_CONNECTIONS'),
    destMaxRatePerMinute: setting(env, 'MAILROOM_DEST_MAX_RATE'),
    deliveryMaxAgeHours: setting(env, 'MAILROOM_DELIVERY_MAX_AGE_HOURS'),
    ehloName: setting(env, 'MAILROOM_EHLO_NAME'),
    deliveryLeaseMs: setting(env, 'MAILROOM_DELIVERY_LEASE_SECONDS') * 1000,
    dataRemovalBatch: setting(env, 'MAILROOM_DATA_REMOVAL_BATCH'),
    bounceTestingDomain: setting(env, 'MAILROOM_BOUNCE_TESTING_DOMAIN'),
    devSmtp: parseDevSmtp(env),
    releaseRelay: parseReleaseRelay(env),
    mailpitWebhookUrl: setting(env, 'MAILROOM_MAILPIT_WEBHOOK_URL'),
    mailpitOpenServer: (env.MAILROOM_MAILPIT_OPEN_SERVER ?? '').trim() || null,
    databasePoolSize: setting(env, 'MAILROOM_DATABASE_POOL_SIZE'),
    sendQueueLimit: setting(env, 'MAILROOM_SEND_QUEUE_LIMIT'),
    http: httpTimeouts(env),
    httpTls,
    shutdownTimeoutMs: setting(env, 'MAILROOM_SHUTDOWN_TIMEOUT_SECONDS') * 1000,
    metricsToken: setting(env, 'MAILROOM_METRICS_TOKEN'),
    submission: parseSubmission(env),
    tlsCa: parseTlsCa(env),
    mtaStsPort: 443,
    ipPools: ipPools(env),
    dmarc: parseDmarc(env, inboundDomain),
  };
}
