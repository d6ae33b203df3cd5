// A failure to start is one line naming the setting to fix, not a stack trace: a port taken, a database that
// cannot be reached (its password hidden), a database file that cannot be opened.
import { isPostgresUrl } from './infra/db/url.js';

/** The database URL with its password replaced, safe to print. */
export function redactUrl(url: string): string {
  if (!isPostgresUrl(url)) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
}

const NETWORK = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
// PostgreSQL SQLSTATEs met when connecting: bad password, no such role, no such database, too many clients.
const PG_CONNECT = new Set(['28P01', '28000', '3D000', '53300', '57P03']);

interface ErrLike {
  code?: string;
  port?: number;
  address?: string;
  syscall?: string;
  message?: string;
  errors?: ErrLike[];
}

/** The listening ports' variables with their defaults (config.ts), for a port no variable set. */
const DEFAULT_PORTS: Array<[string, number]> = [
  ['MAILROOM_PORT', 8080],
  ['MAILROOM_INBOUND_SMTP_PORT', 2525],
  ['MAILROOM_SUBMISSION_PORT', 2587],
];

/**
 * The MAILROOM_*PORT variable set to `port`, for naming it; else the listener whose default it is (a busy 2525
 * is the inbound SMTP listener's, not the HTTP port's).
 */
function portVariable(port: number | undefined, env: Record<string, string | undefined>): string {
  for (const [k, v] of Object.entries(env)) {
    if (/^MAILROOM_\w*PORT$/.test(k) && v !== undefined && Number(v) === port) return k;
  }
  for (const [k, d] of DEFAULT_PORTS) if (d === port && env[k] === undefined) return k;
  return 'MAILROOM_PORT';
}

/** One line for an error met while starting, or null when it is not one we can explain. */
export function describeStartError(err: unknown, databaseUrl: string, env: Record<string, string | undefined> = process.env): string | null {
  const e = (err ?? {}) as ErrLike;
  // AggregateError (a host name resolving to several addresses) carries the real causes.
  const code = e.code ?? e.errors?.[0]?.code;
  const message = e.message || e.errors?.[0]?.message || String(err);
  if (e.syscall === 'listen' && (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')) {
    const why = code === 'EADDRINUSE' ? 'the port is already in use' : code === 'EACCES' ? 'permission denied' : 'no such address on this machine';
    return `cannot listen on ${e.address ?? '?'}:${e.port ?? '?'} (${portVariable(e.port, env)}): ${why} (${code})`;
  }
  const pgConnect = isPostgresUrl(databaseUrl) && ((code && (NETWORK.has(code) || PG_CONNECT.has(code))) || /timeout exceeded when trying to connect|Connection terminated/i.test(message));
  if (pgConnect) return `cannot reach the database (MAILROOM_DATABASE_URL=${redactUrl(databaseUrl)}): ${message.replaceAll(databaseUrl, redactUrl(databaseUrl))}`;
  if (!isPostgresUrl(databaseUrl) && (code?.startsWith('SQLITE_CANTOPEN') || code === 'EACCES' || code === 'EROFS')) {
    return `cannot open the database file (MAILROOM_DATABASE_URL=${databaseUrl}): ${message}`;
  }
  return null;
}
