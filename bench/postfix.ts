// Postfix for bench/deliver: a private instance (own config and queue directories under os.tmpdir())
// listening on a loopback port and relaying everything to the bench sink. Needs root (Postfix drops to
// its own users) and Debian's postfix package; when either is missing, the caller reports it as skipped.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1', () => {
        c.destroy();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`Postfix did not listen on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `extraMain`: more main.cf lines (bench/submission defers delivery to measure intake alone). */
export async function runPostfix<T>(sinkPort: number, use: (port: number) => Promise<T>, extraMain: string[] = []): Promise<T> {
  if (!existsSync('/usr/sbin/postfix')) throw new Error('Postfix is not installed (apt-get install postfix)');
  if (process.getuid?.() !== 0) throw new Error('Postfix needs root to start');
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-postfix-'));
  const conf = join(dir, 'etc');
  const port = await freePort();
  execFileSync('mkdir', ['-p', conf, join(dir, 'queue'), join(dir, 'data')]);
  // Postfix's own users must reach the queue; its data directory belongs to the postfix user.
  execFileSync('chmod', ['755', dir]);
  execFileSync('chown', ['postfix:postfix', join(dir, 'data')]);
  const masterCf = readFileSync('/etc/postfix/master.cf', 'utf8').replace(/^smtp\s+inet\s.*$/m, `127.0.0.1:${port} inet n - n - 200 smtpd`);
  writeFileSync(join(conf, 'master.cf'), masterCf);
  writeFileSync(
    join(conf, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${join(dir, 'queue')}`,
      `data_directory = ${join(dir, 'data')}`,
      'myhostname = bench.localhost',
      'mydestination =',
      'inet_interfaces = 127.0.0.1',
      'inet_protocols = ipv4',
      'mynetworks = 127.0.0.0/8',
      `relayhost = [127.0.0.1]:${sinkPort}`,
      'smtp_tls_security_level = none',
      'smtpd_tls_security_level = none',
      'default_process_limit = 200',
      'smtp_destination_concurrency_limit = 64',
      'default_destination_concurrency_limit = 64',
      'maillog_file = /dev/stdout', // the master's stdout: discarded
      'smtputf8_enable = no',
      'alias_maps =',
      'alias_database =',
      ...extraMain,
    ].join('\n') + '\n',
  );
  const env = { ...process.env, MAIL_CONFIG: conf };
  // Postfix only accepts a non-default configuration directory that the default one lists.
  const defaultMain = '/etc/postfix/main.cf';
  const hadDefault = existsSync(defaultMain);
  if (!hadDefault) writeFileSync(defaultMain, `alternate_config_directories = ${conf}\n`);
  // `postfix start` refuses a private instance without Debian's postfix-files beside its main.cf; the
  // master in the foreground (start-fg) runs the same daemons.
  const master = spawn('/usr/sbin/postfix', ['-c', conf, 'start-fg'], { env, stdio: 'ignore' });
  try {
    await waitForPort(port, 20_000);
    return await use(port);
  } finally {
    try {
      execFileSync('/usr/sbin/postfix', ['-c', conf, 'stop'], { env, stdio: 'ignore' });
    } catch {
      /* already down */
    }
    master.kill();
    if (!hadDefault) rmSync(defaultMain, { force: true });
    if (!process.env.BENCH_DEBUG) rmSync(dir, { recursive: true, force: true });
  }
}
