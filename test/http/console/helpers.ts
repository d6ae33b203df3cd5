// Console test shortcuts: a user in the database, a signed-in HTTP client (cookie + CSRF token) that
// speaks HTML forms, with redirects left for the test to see.
import assert from 'node:assert/strict';
import { addUser } from '../../../src/domain/console-users/users.js';
import { MailpitClient } from 'mailpit-api';
import type { TestService } from '../../helpers/service.js';

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };
export const VIEWER = { email: 'viewer@example.com', password: 'viewer password 123' };

export async function addUsers(s: TestService): Promise<void> {
  await addUser(s.ctx.db, { ...ADMIN, role: 'admin' }, s.clock.now());
  await addUser(s.ctx.db, { ...VIEWER, role: 'viewer' }, s.clock.now());
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class ConsoleClient {
  cookie = '';
  csrf = '';
  constructor(readonly s: TestService) {}

  async request(method: string, path: string, form?: Record<string, string>): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(this.s.url + path, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }
  get = (path: string) => this.request('GET', path);
  /** POSTs a form with this session's CSRF token (unless the form names its own _csrf). */
  post = (path: string, form: Record<string, string> = {}) => this.request('POST', path, { _csrf: this.csrf, ...form });

  async signIn(user: { email: string; password: string }): Promise<Answer> {
    const r = await this.request('POST', '/login', { email: user.email, password: user.password });
    const set = r.headers.get('set-cookie');
    if (r.status === 303 && set) {
      this.cookie = set.split(';')[0]!;
      const page = await this.get(`/console/s/${this.s.serverId}/activity`);
      assert.equal(page.status, 200, page.text);
      this.csrf = /data-csrf="([^"]+)"/.exec(page.text)![1]!;
    }
    return r;
  }
}

/** The two users added, each signed in on a client of their own. */
export async function signedInPair(s: TestService): Promise<{ admin: ConsoleClient; viewer: ConsoleClient }> {
  await addUsers(s);
  const admin = new ConsoleClient(s);
  const viewer = new ConsoleClient(s);
  await admin.signIn(ADMIN);
  await viewer.signIn(VIEWER);
  return { admin, viewer };
}

/** The page an action redirected to, with the one-time message it carried in its flash cookie. */
export async function followFlash(c: ConsoleClient, r: { location: string | null; headers: Headers }): Promise<Answer> {
  const flash = /mailroom_flash=[^;]*/.exec(r.headers.get('set-cookie') ?? '')?.[0];
  const saved = c.cookie;
  c.cookie = flash ? `${saved}; ${flash}` : saved;
  try {
    return await c.get(r.location!);
  } finally {
    c.cookie = saved;
  }
}

/** A Sandbox server made through the API, with its token and a Mailpit client reading it as user `dev`. */
export async function sandboxInbox(s: TestService, Name: string): Promise<{ token: string; sid: number; mp: MailpitClient }> {
  const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name, DeliveryType: 'Sandbox' } });
  assert.equal(r.status, 200, r.text);
  const token = r.body.ApiTokens[0] as string;
  return { token, sid: r.body.ID as number, mp: new MailpitClient(`${s.url}/mailpit`, { auth: { username: 'dev', password: token } }) };
}
