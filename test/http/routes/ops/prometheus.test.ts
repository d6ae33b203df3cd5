// Debian's Prometheus scrapes /metrics of a running service, and a delivery counter is read back through
// Prometheus's own HTTP API: the text format is one a real Prometheus accepts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../../helpers/senders.js';
import { startService, type TestService } from '../../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../../helpers/smtp-sink.js';
import { waitFor } from '../../../helpers/wait.js';

const PROMETHEUS = '/usr/bin/prometheus';
const METRICS_TOKEN = 'prometheus-scrape-token-000001';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('Prometheus scrapes /metrics', { skip: !existsSync(PROMETHEUS) && 'prometheus is not installed (scripts/setup.sh)' }, () => {
  let s: TestService;
  let sink: SmtpSink;
  let dir: string;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_METRICS_TOKEN: METRICS_TOKEN } });
    await addConfirmedSender(s, 'prom@example.test');
    dir = mkdtempSync(join(tmpdir(), 'mailroom-prom-'));
  });
  after(async () => {
    await s.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads mailroom_delivery_attempts_total through the Prometheus query API', async () => {
    for (const to of ['a@example.net', 'b@example.org']) {
      assert.equal((await s.request('POST', '/email', { body: { From: 'prom@example.test', To: to, Subject: 's', TextBody: 't' } })).status, 200);
    }
    await s.drain();
    const target = new URL(s.url).host;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: mailroom\n    authorization:\n      credentials: ${METRICS_TOKEN}\n    static_configs:\n      - targets: ['${target}']\n`,
    );
    const port = await freePort();
    const prom = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`], {
      stdio: 'ignore',
    });
    try {
      const query = encodeURIComponent('mailroom_delivery_attempts_total{outcome="delivered"}');
      const value = await waitFor(
        async () => {
          const r = (await (await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${query}`)).json()) as { data?: { result?: Array<{ value: [number, string] }> } };
          return r.data?.result?.[0]?.value[1];
        },
        { timeoutMs: 60_000, intervalMs: 250, what: 'Prometheus to scrape the delivery counter' },
      );
      assert.equal(value, '2');
      const up = (await (await fetch(`http://127.0.0.1:${port}/api/v1/query?query=up`)).json()) as { data: { result: Array<{ value: [number, string] }> } };
      assert.equal(up.data.result[0].value[1], '1');
    } finally {
      prom.kill('SIGKILL');
    }
  });
});
