// Prometheus metrics (prom-client), one registry per process built in the composition root: no global
// default registry, so tests that build several services in one process keep their figures apart.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  messagesAccepted: Counter<'stream' | 'source'>;
  deliveryAttempts: Counter<'outcome'>;
  smtpTransactionSeconds: Histogram<'outcome'>;
  tlsResults: Counter<'result' | 'policy'>;
  webhookDeliveries: Counter<'outcome'>;
  inboundMessages: Counter<'kind'>;
  groupCommitSize: Histogram<'committer'>;
  dbPoolWaitSeconds: Histogram;
  bulkRequestsAccepted: Counter;
}

export interface MetricSources {
  /** Per-queue depth and oldest job age, read on each scrape. */
  queues?: () => Promise<Array<{ queue: string; depth: number; oldestAgeMs: number }>>;
  /** PostgreSQL pool counters, read on each scrape. */
  pool?: () => { total: number; idle: number; waiting: number };
  /** Bulk requests per status and entries waiting to be compiled (domain/bulk/counts.ts), read on each scrape. */
  bulk?: () => Promise<{ requests: Record<string, number>; entriesPending: number }>;
}

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(sources: MetricSources = {}, processMetrics = true): Metrics {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry, prefix: 'mailroom_' });
  const r = { registers: [registry] };
  const m: Metrics = {
    registry,
    httpDuration: new Histogram({ ...r, name: 'mailroom_http_request_duration_seconds', help: 'HTTP requests by route template and status', labelNames: ['method', 'route', 'status'], buckets: SECONDS }),
    messagesAccepted: new Counter({ ...r, name: 'mailroom_messages_accepted_total', help: 'Messages accepted (durably stored) by message stream and source', labelNames: ['stream', 'source'] }),
    deliveryAttempts: new Counter({ ...r, name: 'mailroom_delivery_attempts_total', help: 'Delivery attempts per recipient by outcome (delivered, deferred, bounced)', labelNames: ['outcome'] }),
    smtpTransactionSeconds: new Histogram({ ...r, name: 'mailroom_smtp_transaction_seconds', help: 'Time of one outbound SMTP transaction (MAIL FROM to the reply after DATA)', labelNames: ['outcome'], buckets: SECONDS }),
    // No domain label: destinations are unbounded; `mailroom status` has the per-domain counts.
    tlsResults: new Counter({
      ...r,
      name: 'mailroom_delivery_tls_total',
      help: 'Outbound delivery attempts by TLS-RPT result (success, starttls-not-supported, certificate-*, validation-failure, sts-policy-fetch-error) and MTA-STS mode applied',
      labelNames: ['result', 'policy'],
    }),
    webhookDeliveries: new Counter({ ...r, name: 'mailroom_webhook_deliveries_total', help: 'Webhook POST attempts by outcome (delivered, retry, failed)', labelNames: ['outcome'] }),
    inboundMessages: new Counter({ ...r, name: 'mailroom_inbound_messages_total', help: 'Messages taken by the inbound SMTP listener by what they were', labelNames: ['kind'] }),
    groupCommitSize: new Histogram({ ...r, name: 'mailroom_group_commit_size', help: 'Units written per group commit', labelNames: ['committer'], buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] }),
    dbPoolWaitSeconds: new Histogram({ ...r, name: 'mailroom_db_pool_wait_seconds', help: 'Wait for a pooled PostgreSQL connection', buckets: SECONDS }),
    // Their messages are counted by mailroom_messages_accepted_total{source="bulk"} as the workers compile them.
    bulkRequestsAccepted: new Counter({ ...r, name: 'mailroom_bulk_requests_accepted_total', help: 'Bulk requests (POST /email/bulk) durably stored' }),
  };
  if (sources.queues) {
    const read = sources.queues;
    // Both gauges come from one query per scrape: the first collect() reads, the second reuses it.
    let pending: ReturnType<typeof read> | null = null;
    const snapshot = () => (pending ??= read().finally(() => setImmediate(() => (pending = null))));
    new Gauge({
      ...r,
      name: 'mailroom_queue_depth',
      help: 'Jobs waiting or running per queue',
      labelNames: ['queue'],
      async collect() {
        this.reset();
        for (const q of await snapshot().catch(() => [])) this.set({ queue: q.queue }, q.depth);
      },
    });
    new Gauge({
      ...r,
      name: 'mailroom_queue_oldest_job_age_seconds',
      help: 'Age of the oldest job per queue',
      labelNames: ['queue'],
      async collect() {
        this.reset();
        for (const q of await snapshot().catch(() => [])) this.set({ queue: q.queue }, q.oldestAgeMs / 1000);
      },
    });
  }
  if (sources.bulk) {
    const read = sources.bulk;
    let pending: ReturnType<typeof read> | null = null;
    const snapshot = () => (pending ??= read().finally(() => setImmediate(() => (pending = null))));
    new Gauge({
      ...r,
      name: 'mailroom_bulk_requests',
      help: 'Bulk requests by status (Accepted, Processing, Completed, Failed)',
      labelNames: ['status'],
      async collect() {
        this.reset();
        const b = await snapshot().catch(() => null);
        for (const [status, n] of Object.entries(b?.requests ?? {})) this.set({ status }, n);
      },
    });
    new Gauge({
      ...r,
      name: 'mailroom_bulk_entries_pending',
      help: 'Entries of open bulk requests not yet compiled into messages',
      async collect() {
        const b = await snapshot().catch(() => null);
        this.set(b?.entriesPending ?? 0);
      },
    });
  }
  if (sources.pool) {
    const pool = sources.pool;
    new Gauge({
      ...r,
      name: 'mailroom_db_pool_connections',
      help: 'PostgreSQL pool connections by state',
      labelNames: ['state'],
      collect() {
        const p = pool();
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'busy' }, p.total - p.idle);
        this.set({ state: 'waiting' }, p.waiting);
      },
    });
  }
  return m;
}
