import { pino, type Logger } from 'pino';

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

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } });
}
