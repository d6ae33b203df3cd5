// Shared bits of the delivery tests: sending through the API and reading back what the sink received.
import assert from 'node:assert/strict';
import type { TestService } from '../../helpers/service.js';

export async function send(s: TestService, body: Record<string, unknown>): Promise<string> {
  const r = await s.request('POST', '/email', { body });
  assert.equal(r.status, 200, r.text);
  return r.body.MessageID as string;
}

export async function recipientsOf(s: TestService, id: string) {
  return s.ctx.db.selectFrom('message_recipients').selectAll().where('message_id', '=', id).orderBy('id').execute();
}

export async function eventsOf(s: TestService, id: string) {
  const rows = await s.ctx.db.selectFrom('message_events').selectAll().where('message_id', '=', id).orderBy('id').execute();
  return rows.map((e) => ({ ...e, details: JSON.parse(e.details) as Record<string, any> }));
}

export async function messageOf(s: TestService, id: string) {
  return s.ctx.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function jobsOf(s: TestService) {
  return s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', 'deliver').execute();
}
