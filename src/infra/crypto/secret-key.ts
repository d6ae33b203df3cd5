import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../../config.js';
import { isPostgresUrl } from '../db/url.js';

/**
 * The master secret: MAILROOM_SECRET_KEY when set; otherwise a random key kept in `secret.key` beside the
 * SQLite file (or in ./data for PostgreSQL), created on first start with mode 0600. Deployments with more
 * than one machine must set MAILROOM_SECRET_KEY so that every process signs and decrypts alike.
 */
export function resolveSecretKey(config: Config): string {
  if (config.secretKey) return config.secretKey;
  const dir =
    isPostgresUrl(config.databaseUrl) || config.databaseUrl === ':memory:'
      ? resolve('data')
      : dirname(resolve(config.databaseUrl.replace(/^file:\/\//i, '')));
  const file = join(dir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
