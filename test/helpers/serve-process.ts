// The real CLI (`mailroom serve`) in a child process on a test service's database: for what only another
// process shows, a kill -9 at an awkward moment or an event loop measured from outside. Ports are bound to
// 0 and read back from the child's log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cliArgs } from './process.js';
import type { TestService } from './service.js';
import { waitFor } from './wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'test-secret-key-test-secret-key-0123456789'; // the key startService() uses

export interface ServeProcess {
  child: ChildProcess;
  /** The HTTP listener's URL (roles all and api). */
  url: string | null;
  /** Ports from the log: inbound SMTP (all, worker), submission (all, api; when configured). */
  inboundPort: number | null;
  submissionPort: number | null;
  log(): string;
  /** Highest resident set size of the child so far, in bytes (Linux /proc VmHWM). */
  peakRss(): number;
  /** SIGKILL, resolved once the child is gone. */
  kill(): Promise<void>;
}

export function databaseUrlOf(s: TestService): string {
  // Each test service has a database of its own (test/helpers/database.ts): its URL is all it takes.
  return s.config.databaseUrl;
}

const portIn = (log: string, message: string): number | null => {
  const line = log.split('\n').find((l) => l.includes(message));
  return line ? (JSON.parse(line) as { port: number }).port : null;
};

export async function startServeProcess(s: TestService, env: Record<string, string>, role: 'all' | 'api' | 'worker' = 'all'): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...cliArgs(), 'serve', '--role', role], {
    cwd: ROOT,
    env: {
      ...process.env,
      MAILROOM_DATABASE_URL: databaseUrlOf(s),
      MAILROOM_SECRET_KEY: SECRET,
      MAILROOM_PORT: '0',
      MAILROOM_INBOUND_SMTP_PORT: '0',
      // The submission listener's default port is fixed (2587): two children at once would clash over it. A
      // test that submits asks for it ('0').
      MAILROOM_SUBMISSION_PORT: 'off',
      MAILROOM_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const ready = role === 'api' ? 'mailroom listening' : 'mailroom worker started';
  // Loading the CLI's modules is slow on a loaded machine.
  try {
    await waitFor(() => log.includes(ready) || child.exitCode !== null, { timeoutMs: 90_000, what: `the child to log '${ready}'` });
  } catch (err) {
    // A child left running keeps the test file's process alive after the failure, until the runner's
    // per-file timeout kills it.
    child.kill('SIGKILL');
    throw err;
  }
  if (child.exitCode !== null) throw new Error(`the child exited with ${child.exitCode}:\n${log}`);
  const listening = log.split('\n').find((l) => l.includes('mailroom listening'));
  return {
    child,
    url: listening ? (JSON.parse(listening) as { url: string }).url : null,
    inboundPort: portIn(log, 'inbound SMTP listener started'),
    submissionPort: portIn(log, 'submission SMTP listener started'),
    log: () => log,
    peakRss: () => {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
