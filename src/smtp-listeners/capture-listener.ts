// A local capture, for trying mailroom without the internet (README, "First send, in four commands").
// With MAILROOM_CAPTURE_DIR set, the worker role starts this SMTP listener on a loopback port of its own and
// delivers through it as its relay: every message, customer and system mail alike, is written into that
// folder as an .eml file (the raw source as sent, with its DKIM signature when it has one) and logged with the file's name.
// Delivery itself is unchanged: the message gets its Delivered event with this listener's 250 reply.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { SmtpRelay } from '../infra/config-types.js';
import type { Logger } from '../infra/logger.js';

export interface CaptureListener {
  /** The relay setting that delivers here. */
  relay: SmtpRelay;
  /** Where the "captured message" lines go (the context's logger, made after the listener). */
  useLogger(logger: Logger): void;
  stop(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 60 * 1024 * 1024;

/** The unfolded value of a header field in a raw message, for the log line (encoded words left as they are). */
function headerValue(raw: string, name: string): string {
  const head = raw.slice(0, Math.max(0, raw.indexOf('\r\n\r\n')));
  const m = new RegExp(`^${name}:[ \\t]*((?:.*)(?:\\r\\n[ \\t].*)*)`, 'im').exec(head);
  return m ? m[1].replace(/\r\n[ \t]+/g, ' ').slice(0, 200) : '';
}

export async function startCaptureListener(dir: string): Promise<CaptureListener> {
  const folder = resolve(dir);
  // Captured mail holds whole messages: private to the service's user, like the database files.
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  let log: Logger | null = null;
  let seq = 0;
  const server = new SMTPServer({
    name: 'capture.localhost',
    banner: 'mailroom capture (nothing leaves this machine)',
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    disableReverseLookup: true,
    size: MAX_MESSAGE_BYTES,
    // A connection still open at stop is cut after 2 s: the drain's deadline is the process's, not ours.
    closeTimeout: 2_000,
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const name = `${Date.now()}-${String(++seq).padStart(4, '0')}.eml`;
        const file = join(folder, name);
        try {
          writeFileSync(file, raw, { mode: 0o600 });
        } catch (err) {
          return cb(Object.assign(new Error(`4.3.0 cannot write ${name}: ${(err as Error).message}`), { responseCode: 451 }));
        }
        const text = raw.subarray(0, 64 * 1024).toString('utf8');
        log?.info(
          {
            file,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: headerValue(text, 'Subject'),
            bytes: raw.length,
          },
          'captured message',
        );
        cb(null, `2.0.0 captured as ${name}`);
      });
    },
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', fail);
      ok();
    });
  });
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    relay: { url: `smtp://127.0.0.1:${port}`, secure: false, host: '127.0.0.1', port },
    useLogger(l) {
      log = l.child({ component: 'capture', dir: folder });
    },
    stop: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
