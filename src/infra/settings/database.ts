// Which database, its pool, and the batch of a data removal.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const DATABASE_SETTINGS = {
  MAILROOM_DATABASE_URL: {
    area: 'Database',
    default: './data/mailroom.db',
    description: 'a file path (SQLite) or `postgres://...` (PostgreSQL)',
    kind: { type: 'database-url', fallback: './data/mailroom.db' },
    field: 'databaseUrl',
  },
  MAILROOM_DATABASE_POOL_SIZE: {
    area: 'Database',
    default: '10',
    description: 'PostgreSQL connections per process',
    kind: { type: 'int', min: 1, max: 1000, fallback: 10 },
    field: 'databasePoolSize',
  },
  MAILROOM_DATA_REMOVAL_BATCH: {
    area: 'Database',
    default: '500',
    description: 'rows per transaction of a data removal (`POST /data-removals`)',
    kind: { type: 'int', min: 1, max: 100_000, fallback: 500 },
    field: 'dataRemovalBatch',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
