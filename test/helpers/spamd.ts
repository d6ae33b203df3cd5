// A real SpamAssassin daemon on loopback (Debian's spamassassin, installed by scripts/setup.sh): local
// tests only (-L: no DNS blocklists or other network tests), a temporary home, one child. Started as root
// it runs as nobody (-u). Its address goes to MAILROOM_SPAMD.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Spamd {
  address: string;
  stop(): Promise<void>;
}

export const SPAMD_BIN = '/usr/sbin/spamd';
export const spamdInstalled = () => existsSync(SPAMD_BIN);

/** The GTUBE test string (SpamAssassin's documented test pattern, scored 1000). */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/** One CHECK (the spamc protocol) of a small message, resolved when spamd has answered it whole. */
function firstScan(port: number, deadline: number): Promise<void> {
  const body = 'From: a@example.com\r\nTo: b@example.com\r\nSubject: warm-up\r\n\r\nhello\r\n';
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => s.destroy(new Error('no answer before the deadline')), Math.max(1, deadline - Date.now()));
    s.on('data', (c: Buffer) => (answer += c.toString()));
    s.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    s.once('close', () => {
      clearTimeout(timer);
      if (/^SPAMD\/[\d.]+ 0 EX_OK/.test(answer)) resolve();
      else reject(new Error(`answer: ${JSON.stringify(answer.slice(0, 200))}`));
    });
    s.end(`CHECK SPAMC/1.5\r\nContent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

export async function startSpamd(timeoutMs = 60_000): Promise<Spamd> {
  const home = mkdtempSync(join(tmpdir(), 'mailroom-spamd-'));
  const port = await freePort();
  const args = ['-L', `--listen=127.0.0.1:${port}`, '-x', `--virtual-config-dir=${home}`, '--min-children=1', '--max-children=2', '-s', 'stderr'];
  if (process.getuid?.() === 0) args.push('-u', 'nobody');
  const child = spawn(SPAMD_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  // spamd compiles its rules before it listens (a few seconds); poll for the port with a deadline.
  while (!(await canConnect(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`spamd did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The first scan of a child loads what the rules need beyond compiling them: taken here, so that a test's
  // first check meets a spamd as warm as a running service's, not the route's time limit.
  await firstScan(port, deadline).catch((err: Error) => {
    child.kill();
    throw new Error(`spamd did not answer a first scan: ${err.message}\n${log}`);
  });
  return {
    address: `127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}
