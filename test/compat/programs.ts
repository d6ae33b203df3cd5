// The real clients of the compatibility tier are programs in other languages (Ruby, PHP, Python), installed
// from Debian by scripts/setup.sh. A test file describes its suite through describeWith: where the program
// is missing the suite is skipped with a banner, and under CI=true it fails instead, as the PostgreSQL runs
// do (scripts/test.mjs), so that CI never passes a tier that drove no client.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import PostalMime, { type Email } from 'postal-mime';
import type { SmtpSink } from '../helpers/smtp-sink.js';
import type { TestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

/** Why the program cannot run (its probe's exit and output), or null when it can. */
export function missingProgram(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60_000 });
  if (r.error) return `${cmd}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}`;
  if (r.status !== 0) return `${cmd} ${args.join(' ').slice(0, 80)}: exit ${r.status}: ${(r.stderr || r.stdout).trim().split('\n')[0]}`;
  return null;
}

/** A suite that needs `what` (probed by `missing`): skipped loudly outside CI, failed under CI=true. */
export function describeWith(name: string, what: string, missing: string | null, fn: () => void): void {
  if (missing === null) {
    describe(name, fn);
    return;
  }
  const why = `${what} is not installed (${missing}); run scripts/setup.sh`;
  if (process.env.CI) {
    describe(name, () => it(`has ${what} installed`, () => assert.fail(why)));
    return;
  }
  console.error(`\n############################################################\n##  SKIPPING "${name}": ${why}\n############################################################\n`);
  describe(name, { skip: why }, fn);
}

export interface ProgramRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a client program to its end; its stdout is read as JSON lines by the tests. */
export function runProgram(cmd: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The program's results: one JSON object per stdout line, keyed by the step it names ({"step": ..., ...}).
 * A step that failed prints {"step", "error"}; the test asserting on it shows the client's error.
 */
export function stepsOf(run: ProgramRun): Map<string, Record<string, any>> {
  const steps = new Map<string, Record<string, any>>();
  for (const line of run.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line) as Record<string, any>;
    steps.set(String(o.step), o);
  }
  return steps;
}

/** The step's result, failing with the client's own error (and the program's stderr) when it failed. */
export function step(steps: Map<string, Record<string, any>>, name: string, run: ProgramRun): Record<string, any> {
  const s = steps.get(name);
  assert.ok(s, `step ${name} did not run (exit ${run.code}): ${run.stderr.slice(-2000)}`);
  assert.equal(s.error, undefined, `step ${name}: ${s.error}`);
  return s;
}

/** The message as delivered to the relay (the sink), found by its subject after the queue has run. */
export async function delivered(s: TestService, sink: SmtpSink, subject: string): Promise<Email> {
  await s.drain();
  const raw = await waitFor(() => sink.messages.find((m) => m.raw.includes(`Subject: ${subject}`))?.raw, { what: `delivery of "${subject}"` });
  return PostalMime.parse(raw);
}

/** A header's value in a parsed message (the first of that name). */
export function header(mail: Email, name: string): string | undefined {
  return mail.headers.find((h) => h.key === name.toLowerCase())?.value;
}
