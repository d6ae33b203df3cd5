import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config-types.js';
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
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Processes started together race to create the key: each writes its own temporary file and links it
  // into place. link() is atomic and fails if the name exists, so exactly one key wins and a loser reads a
  // file that is already whole (an exclusive create of the final name could be read half-written).
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
  return readFileSync(file, 'utf8').trim();
}
