// Taking mail in through the API: the send queue's bound, the bounce-testing domain, private webhook
// targets.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const SENDING_SETTINGS = {
  MAILROOM_SEND_QUEUE_LIMIT: {
    area: 'Sending',
    default: '20000',
    description: 'Messages of send requests (`/email`, batches, template sends, SMTP submission) waiting for their group commit; beyond it a request is refused with 503 `{ErrorCode: 100}` and `Retry-After: 1` instead of queueing without bound. A request larger than the limit is still taken when nothing waits',
    kind: { type: 'int', min: 1, max: 10_000_000, fallback: 20_000 },
    field: 'sendQueueLimit',
  },
  MAILROOM_BOUNCE_TESTING_DOMAIN: {
    area: 'Sending',
    default: 'unset',
    description: 'a black-hole domain for fake bounces besides the hosted service\'s `bounce-testing.postmarkapp.com` (see "Bounces and spam complaints", "Fake bounces")',
    kind: { type: 'hostname' },
    field: 'bounceTestingDomain',
  },
  MAILROOM_WEBHOOK_ALLOW_PRIVATE: {
    area: 'Sending',
    default: 'false',
    description: 'allow webhook and InboundHookUrl targets, and the links a message\'s link check requests, that are not globally reachable (loopback, private, documentation ranges, this host\'s own addresses)',
    kind: { type: 'bool', fallback: false },
    field: 'webhookAllowPrivate',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
