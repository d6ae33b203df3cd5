// The worker threads that parse received mail and inline templates' CSS.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const PARSER_THREAD_SETTINGS = {
  MAILROOM_PARSE_THREADS: {
    area: 'Parser threads',
    default: '0 (one per CPU)',
    description: 'worker threads that parse and authenticate SMTP mail (inbound: MIME, SPF/DKIM/DMARC, the webhook JSON; submission: MIME and the API\'s validation) and inline templates\' CSS, so the event loop keeps answering HTTP and SMTP while a hostile message is parsed or a large template inlined. Each has a 512 MB heap and a 120 s budget per message; a message that passes either is refused like unparseable MIME (`554 5.6.0` inbound, `550 5.6.0` submission), and the thread is replaced',
    kind: { type: 'int', min: 0, max: 256, fallback: 0 },
    field: 'parseThreads',
  },
  MAILROOM_PARSE_THREAD_TASKS: {
    area: 'Parser threads',
    default: '16',
    description: 'messages one parser thread reads at once, within 32 MB of message bytes (a message\'s SPF, DKIM and DMARC checks wait for DNS answers, and a thread reading one at a time idled through them: bench:inbound 236 msg/s against 487); a thread that fails while it reads several answers each of them `451 4.3.2` rather than blaming one',
    kind: { type: 'int', min: 1, max: 256, fallback: 16 },
    field: 'parseThreadTasks',
  },
  MAILROOM_PARSE_QUEUE: {
    area: 'Parser threads',
    default: '256',
    description: 'messages that may wait for a parser thread; one more is answered `451 4.3.2` at the end of DATA (the sender keeps it and retries), so memory stays bounded',
    kind: { type: 'int', min: 0, max: 100_000, fallback: 256 },
    field: 'parseQueue',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
