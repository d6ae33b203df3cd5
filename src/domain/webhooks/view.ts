// The Webhook record as the API renders it (docs/reference/webhooks.md, "Webhook record"). The HttpAuth
// password is never echoed: a set password reads as a fixed mask, which PUT also understands as "unchanged".
import type { Selectable } from 'kysely';
import type { WebhooksTable } from '../../infra/db/tables/webhooks.js';
import { fromJson } from '../../infra/db/util.js';
import { parseTriggers } from './triggers.js';

export const PASSWORD_MASK = '********';

export type WebhookRow = Selectable<WebhooksTable>;

export function webhookView(w: WebhookRow) {
  return {
    ID: w.id,
    Url: w.url,
    MessageStream: w.stream_id,
    HttpAuth: { Username: w.http_auth_user, Password: w.http_auth_password ? PASSWORD_MASK : '' },
    HttpHeaders: fromJson<Array<{ Name: string; Value: string }>>(w.headers, []),
    Triggers: parseTriggers(w.triggers),
  };
}
