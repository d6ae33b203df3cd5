// Runs the real CLI (`mailroom ...`) as a child process, for tests of what an operator sees: exit codes,
// the lines printed, signals. Output is collected as it comes; waitForLine polls it with a deadline.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url));
export const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/**
 * The node arguments that start the CLI. When the tests run from the transpiled copy of the checkout
 * (scripts/test-build.mjs: this helper is then a .js file), its transpiled src/cli.js, as the test process
 * runs the sources: under tsx every child would pay tsx's loader again, about 2 s of CPU before the CLI
 * starts. Under tsx (MAILROOM_TEST_TSX=1), the sources through tsx.
 */
export function cliArgs(): string[] {
  if (import.meta.url.endsWith('.js')) return ['--enable-source-maps', fileURLToPath(new URL('../../src/cli.js', import.meta.url))];
  return ['--import', TSX, CLI];
}

export interface MailroomProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  waitForLine(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  kill(signal?: NodeJS.Signals): void;
}

/** The environment of a child: only what the test gives, plus PATH/HOME (no MAILROOM_* leaking in). */
export function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NODE_NO_WARNINGS: '1', ...env };
}

export function runMailroom(args: string[], env: Record<string, string>, cwd = ROOT): MailroomProcess {
  const child = spawn(process.execPath, [...cliArgs(), ...args], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitForLine(re, timeoutMs = 20_000) {
      return waitFor(() => re.exec(out) ?? re.exec(err), { timeoutMs, intervalMs: 25, what: `${re} in the output of mailroom ${args.join(' ')}\n${out}\n${err}` });
    },
    kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Runs a CLI command to its end. */
export async function runToEnd(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = runMailroom(args, env);
  const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** MAILROOM_DATABASE_URL for a test database (PostgreSQL: its schema through the URL's search_path). */
export function databaseUrlFor(tdb: { url: string; options: { schema?: string } }): string {
  if (!tdb.options.schema) return tdb.url;
  const u = new URL(tdb.url);
  u.searchParams.set('options', `-c search_path=${tdb.options.schema}`);
  return u.toString();
}
