import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

// Tokens and credentials never reach the log: these paths are censored wherever they appear.
const REDACT = [
  'req.headers["x-service-server-token"]',
  'req.headers["x-service-account-token"]',
  'req.headers["x-postmark-server-token"]',
  'req.headers["x-postmark-account-token"]',
  'req.headers.authorization',
  'token',
  'password',
];

/** `destination`: where lines go (stdout by default; tests capture them). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}
