// The robustness walk: every route of the running app (from GET /openapi.json, plus the hidden public
// routes), each sent a seeded set of hostile path parameters, query strings, headers and bodies. Every answer
// must be < 500, and a 4xx must be JSON {ErrorCode: integer, Message: string} (HTML for the public pages).
// A refused write must leave the database as it was (row counts of every table compared before and after).
import { sql } from 'kysely';
import type { TestService } from '../helpers/service.js';
import {
  baseline,
  fieldPaths,
  hash,
  HOSTILE_PATH_VALUES,
  HOSTILE_QUERY_VALUES,
  HOSTILE_VALUES,
  hostileRawBodies,
  prng,
  withField,
  type Prng,
} from './hostile.js';

export type TokenKind = 'server' | 'account' | 'none' | 'basic';

export interface Route {
  method: string;
  /** OpenAPI path, e.g. /senders/{id}. */
  path: string;
  auth: TokenKind;
  pathParams: string[];
  query: { name: string; required: boolean; type: string }[];
  bodySchema?: Record<string, unknown>;
  /** Public pages that answer HTML (unsubscribe, confirmation, tracking). */
  html?: boolean;
  /** Another product's API (Mailpit's, under /mailpit): its clients parse its own error shapes (plain text or
   * {"Error"}), so a 4xx there need not be {ErrorCode, Message}; never a 5xx all the same. */
  foreign?: boolean;
  /** HTTP Basic password of a 'basic' route (a Sandbox server's token). */
  basic?: string;
}

export interface Case {
  route: Route;
  label: string;
  method: string;
  url: string;
  /** Token to send: the route's own kind by default. */
  token?: { header: string; value: string } | null;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** null: send no Content-Type at all. */
  contentType?: string | null;
}

export interface Failure {
  route: Route;
  label: string;
  request: string;
  status: number;
  answer: string;
  problem: string;
}

/** Valid values for path parameters, by route prefix, filled by the test's fixtures. */
export type ValidParams = (route: Route, param: string) => string;

/** The routes the OpenAPI document lists, with the token kind each needs. */
export function routesFromOpenApi(doc: any): Route[] {
  const out: Route[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(ops)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const sec: string[] = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
      const mailpit = path.startsWith('/mailpit/');
      const auth: TokenKind = mailpit ? 'basic' : sec.includes('accountToken') ? 'account' : sec.includes('serverToken') ? 'server' : 'none';
      const params: any[] = op.parameters ?? [];
      out.push({
        method: method.toUpperCase(),
        path,
        auth,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, required: !!p.required, type: String(p.schema?.type ?? 'string') })),
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
        html: path.startsWith('/unsubscribe/'),
        foreign: mailpit,
      });
    }
  }
  return out;
}

const truncate = (s: string, n = 240) => (s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);

export function describeCase(c: Case): string {
  const body = c.body === undefined ? '' : ` body=${truncate(Buffer.isBuffer(c.body) ? `<bytes ${c.body.toString('hex').slice(0, 120)}>` : c.body)}`;
  const tok = c.token === null ? ' token=<none>' : c.token ? ` token=${c.token.header}:${truncate(c.token.value, 40)}` : ` token=<${c.route.auth}>`;
  const ct = c.contentType === undefined ? '' : ` content-type=${c.contentType}`;
  const hs = c.headers ? ` headers=${truncate(JSON.stringify(c.headers), 120)}` : '';
  return `${c.method} ${truncate(c.url, 300)}${tok}${ct}${hs}${body}`;
}

/** The cases for one route: deterministic for (seed, route). */
export interface Samples {
  /** Valid bodies by "METHOD /path", so that one hostile field reaches past the others' checks. */
  bodies: Record<string, unknown>;
  /** Valid values of optional query keys, by key. */
  query: Record<string, string>;
}

export function casesFor(route: Route, seed: number, valid: ValidParams, budget: { perField: number; perQueryParam: number }, samples: Samples): Case[] {
  const rnd: Prng = prng(seed ^ hash(`${route.method} ${route.path}`));
  const cases: Case[] = [];
  const pathWith = (override: Record<string, string> = {}) =>
    route.path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? valid(route, name));
  const baseQuery = route.query.filter((q) => q.required).map((q) => `${q.name}=${q.type === 'integer' ? (q.name === 'offset' ? '0' : '10') : 'x'}`);
  const qs = (parts: string[]) => (parts.length ? `?${parts.join('&')}` : '');
  const hasBody = !!route.bodySchema || ['POST', 'PUT', 'PATCH'].includes(route.method);
  const sample = samples.bodies[`${route.method} ${route.path}`];
  const base = sample !== undefined ? sample : route.bodySchema ? baseline(route.bodySchema) : undefined;
  // Every optional query key at a valid value too: a hostile value then meets the others' filters.
  const fullQuery = [...baseQuery, ...route.query.filter((q) => !q.required && samples.query[q.name] !== undefined).map((q) => `${q.name}=${samples.query[q.name]}`)];
  const baseBody = base === undefined ? undefined : JSON.stringify(base);
  const add = (label: string, c: Partial<Case> & { url?: string }) =>
    cases.push({ route, label, method: route.method, url: c.url ?? pathWith() + qs(baseQuery), body: hasBody ? baseBody : undefined, ...c });

  add('baseline', {});
  if (fullQuery.length > baseQuery.length) add('baseline:allQueryKeys', { url: pathWith() + qs(fullQuery) });

  if (route.method === 'GET') add('method:HEAD', { method: 'HEAD' });
  add('method:OPTIONS', { method: 'OPTIONS', body: undefined });

  // Tokens: none, the other kind, hostile values.
  if (route.auth === 'basic') {
    const header = 'authorization';
    add('auth:none', { token: null });
    add('auth:wrongPassword', { token: { header, value: basicAuth('u:x') } });
    add('auth:apiHeader', { token: { header: 'x-service-server-token', value: route.basic ?? '' } });
    add('auth:notBase64', { token: { header, value: 'Basic !!!%%%' } });
    add('auth:noColon', { token: { header, value: `Basic ${Buffer.from('nocolon').toString('base64')}` } });
    add('auth:bearer', { token: { header, value: `Bearer ${route.basic ?? ''}` } });
    add('auth:long', { token: { header, value: `Basic ${'A'.repeat(8000)}` } });
    add('auth:latin1', { token: { header, value: `Basic ${'\u00ff\u00e9'.repeat(40)}` } });
  } else if (route.auth !== 'none') {
    const header = route.auth === 'server' ? 'x-service-server-token' : 'x-service-account-token';
    const other = route.auth === 'server' ? 'x-service-account-token' : 'x-service-server-token';
    add('auth:none', { token: null });
    add('auth:otherKind', { token: { header: other, value: 'test-account-token-0000000000000001' } });
    add('auth:serverTokenAsAccount', { token: { header, value: 'test-server-token-00000000000000001' } });
    add('auth:testToken', { token: { header, value: 'SERVICE_API_TEST' } });
    add('auth:long', { token: { header, value: 't'.repeat(8000) } });
    add('auth:latin1', { token: { header, value: '\u00ff\u00e9'.repeat(40) } });
    add('auth:blank', { token: { header, value: '   ' } });
  }

  // URL shapes.
  const p = pathWith();
  add('url:trailingSlash', { url: `${p}/${qs(baseQuery)}` });
  add('url:upperCase', { url: p.toUpperCase() + qs(baseQuery) });
  add('url:emptyQueryParts', { url: `${p}?&&&=&==${baseQuery.length ? `&${baseQuery.join('&')}` : ''}` });
  add('url:unknownParams', { url: `${p}${qs([...baseQuery, 'foo=bar', '__proto__=1', 'constructor=x', 'hasOwnProperty=1', 'toString=1', 'metadata_=1', 'metadata_%00=%00', 'METADATA_X=%F0%9F%98%80'])}` });
  add('url:manyParams', { url: `${p}${qs([...baseQuery, ...Array.from({ length: 400 }, (_, i) => `k${i}=${i}`)])}` });
  add('url:upperCaseKeys', { url: p + qs(baseQuery.map((x) => x.toUpperCase())) });
  add('url:matrix', { url: `${p};jsessionid=1${qs(baseQuery)}` });

  // Path parameters, one at a time, the others valid.
  for (const name of route.pathParams) {
    for (const value of HOSTILE_PATH_VALUES) add(`path:${name}=${truncate(value, 20)}`, { url: pathWith({ [name]: value }) + qs(baseQuery) });
  }

  // Query parameters, one at a time, the others at their valid baseline.
  for (const q of route.query) {
    const others = (rnd.next() < 0.5 ? baseQuery : fullQuery).filter((x) => !x.startsWith(`${q.name}=`));
    const core = ['', '-1', '1.5', '99999999999999999999', '%00', '%ED%A0%80', 'a'.repeat(5000)];
    const values = [...core, ...rnd.sample(HOSTILE_QUERY_VALUES.filter((x) => !core.includes(x)), budget.perQueryParam)];
    for (const value of values) add(`query:${q.name}=${truncate(value, 20)}`, { url: p + qs([...others, `${q.name}=${value}`]) });
    add(`query:${q.name}:repeated`, { url: p + qs([...others, `${q.name}=1`, `${q.name}=2`, `${q.name}=abc`]) });
    add(`query:${q.name}:bare`, { url: p + qs([...others, q.name]) });
  }

  if (hasBody) {
    // Whole bodies.
    const raws = hostileRawBodies();
    for (const b of route.bodySchema ? raws : rnd.sample(raws, 10)) add(`body:${b.label}`, { body: b.body, contentType: b.contentType });
    if (route.bodySchema && sample !== undefined) add('body:schemaBaseline', { body: JSON.stringify(baseline(route.bodySchema)) });
    if (baseBody !== undefined) {
      add('body:baselineInArray', { body: `[${baseBody}]` });
      add('body:baselineNested', { body: JSON.stringify({ Body: base, Messages: base }) });
    }
    // One field at a time.
    if (base !== undefined && typeof base === 'object') {
      const core = ['null', 'hugeLiteral', 'infinityLiteral', 'str:long100k', 'emptyArray', 'emptyObject', 'float', 'str:crlfHeader', 'str:proto'];
      const rest = HOSTILE_VALUES.filter((h) => !core.includes(h.label));
      const coreValues = HOSTILE_VALUES.filter((h) => core.includes(h.label));
      for (const path of fieldPaths(base)) {
        for (const h of [...coreValues, ...rnd.sample(rest, budget.perField)]) {
          add(`field:${path.join('.')}=${h.label}`, { body: withField(base, path, h.json) });
        }
      }
      // Unknown fields and the fields in other cases.
      add('field:unknown', { body: JSON.stringify({ ...(base as object), Unknown: 1, ['\u202E']: 'x', ['__proto__']: { x: 1 } }) });
      add('field:lowerCaseKeys', { body: JSON.stringify(Object.fromEntries(Object.entries(base as object).map(([k, x]) => [k.toLowerCase(), x]))) });
      add('field:allNull', { body: JSON.stringify(Object.fromEntries(Object.keys(base as object).map((k) => [k, null]))) });
      add('field:allNumbers', { body: JSON.stringify(Object.fromEntries(Object.keys(base as object).map((k) => [k, -1]))) });
      add('field:allStrings', { body: JSON.stringify(Object.fromEntries(Object.keys(base as object).map((k) => [k, '\u{1F600}\u202E']))) });
    }
    // Headers next to a body.
    add('header:idempotencyKeyLong', { headers: { 'idempotency-key': 'k'.repeat(9000) } });
    add('header:idempotencyKeyLatin1', { headers: { 'idempotency-key': '\u00ff\u00fe' } });
    add('header:idempotencyKeyBlank', { headers: { 'idempotency-key': ' ' } });
    add('header:contentEncodingGzip', { headers: { 'content-encoding': 'gzip' } });
  }
  return cases;
}

/** An HTTP Basic Authorization value: any user name, `password` as the password. */
export const basicAuth = (password: string): string => `Basic ${Buffer.from(`robust:${password}`).toString('base64')}`;

export async function send(s: TestService, c: Case): Promise<{ status: number; contentType: string; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json', ...c.headers };
  if (c.token !== null) {
    if (c.token) headers[c.token.header] = c.token.value;
    else if (c.route.auth === 'server') headers['x-service-server-token'] = s.serverToken;
    else if (c.route.auth === 'account') headers['x-service-account-token'] = s.accountToken;
    else if (c.route.auth === 'basic') headers.authorization = basicAuth(c.route.basic ?? '');
  }
  let body: string | Buffer | undefined = c.body;
  if (c.method === 'GET' || c.method === 'HEAD') body = undefined;
  if (body !== undefined) {
    if (c.contentType !== null) headers['content-type'] = c.contentType ?? 'application/json';
  }
  const res = await fetch(s.url + c.url, { method: c.method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text };
}

/** What is wrong with an answer, or null. */
export function problemWith(c: Case, r: { status: number; contentType: string; text: string }): string | null {
  if (r.status >= 500) return `status ${r.status}`;
  if (c.method === 'HEAD') return null;
  if (r.status >= 400) {
    if (c.route.html && r.contentType.startsWith('text/html')) return null;
    if (c.route.foreign && !r.contentType.includes('application/json')) return r.contentType ? null : '4xx answer without a content type';
    if (!r.contentType.includes('application/json')) return `4xx answer is not JSON (content-type ${r.contentType})`;
    let b: any;
    try {
      b = JSON.parse(r.text);
    } catch {
      return '4xx answer does not parse as JSON';
    }
    if (c.route.foreign) return null;
    if (!b || typeof b !== 'object' || !Number.isInteger(b.ErrorCode) || typeof b.Message !== 'string') return '4xx answer lacks {ErrorCode: integer, Message: string}';
    return null;
  }
  if (r.contentType.includes('application/json')) {
    try {
      JSON.parse(r.text);
    } catch {
      return '2xx answer claims JSON but does not parse';
    }
  }
  return null;
}

const TABLES = [
  'accounts',
  'api_tokens',
  'servers',
  'message_streams',
  'jobs',
  'messages',
  'message_recipients',
  'message_attachments',
  'message_events',
  'suppressions',
  'domains',
  'dkim_keys',
  'sender_signatures',
  'bounces',
  'inbound_reports',
  'webhooks',
  'webhook_notifications',
  'webhook_attempts',
  'idempotency_keys',
  'opens',
  'clicks',
  'templates',
  'stats_daily',
];

/** Row counts of every table, in one query: a refused write must not change them. */
export async function fingerprint(s: TestService): Promise<string> {
  const q = TABLES.map((t) => `select '${t}' as t, count(*) as n from ${t}`).join(' union all ');
  const r = await sql<{ t: string; n: number | string }>`${sql.raw(q)}`.execute(s.ctx.db);
  return r.rows
    .map((x) => `${x.t}=${x.n}`)
    .sort()
    .join(',');
}

export function diff(a: string, b: string): string {
  const m = new Map(a.split(',').map((x) => x.split('=') as [string, string]));
  return b
    .split(',')
    .map((x) => x.split('='))
    .filter(([t, n]) => m.get(t) !== n)
    .map(([t, n]) => `${t} ${m.get(t)} -> ${n}`)
    .join(', ');
}

/** Runs the cases one after the other; returns what went wrong (never throws for an answer). */
export async function runCases(s: TestService, cases: Case[]): Promise<Failure[]> {
  const failures: Failure[] = [];
  let before = await fingerprint(s);
  for (const c of cases) {
    let r: { status: number; contentType: string; text: string };
    try {
      r = await send(s, c);
    } catch (err) {
      failures.push({ route: c.route, label: c.label, request: describeCase(c), status: 0, answer: '', problem: `request failed: ${(err as Error).message} ${(err as any).cause?.message ?? ''}` });
      continue;
    }
    if (process.env.MAILROOM_ROBUST_VERBOSE && c.label.startsWith('baseline')) console.log(`${r.status} ${c.label} ${c.method} ${c.route.path} ${truncate(r.text, 160)}`);
    const problem = problemWith(c, r);
    if (problem) failures.push({ route: c.route, label: c.label, request: describeCase(c), status: r.status, answer: truncate(r.text, 300), problem });
    if (c.method !== 'GET' && c.method !== 'HEAD') {
      const after = await fingerprint(s);
      if (r.status >= 400 && after !== before) {
        failures.push({ route: c.route, label: c.label, request: describeCase(c), status: r.status, answer: truncate(r.text, 300), problem: `refused write changed the database: ${diff(before, after)}` });
      }
      before = after;
    }
  }
  return failures;
}
