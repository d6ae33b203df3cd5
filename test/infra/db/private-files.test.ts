// The SQLite file holds message bodies; secret.key signs links and seals secrets: both owner-only.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { resolveSecretKey } from '../../../src/infra/crypto/secret-key.js';
import { openDatabase } from '../../../src/infra/db/database.js';
import { migrateToLatest } from '../../../src/infra/db/migrate.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('private data files', () => {
  it('creates the data folder 0700, the database, its WAL and secret.key 0600', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mailroom-perm-'));
    const old = process.umask(0o022); // the usual umask, which would give 0644 files
    try {
      const dir = join(root, 'data');
      const file = join(dir, 'mailroom.db');
      const db = openDatabase(file);
      await migrateToLatest(db);
      resolveSecretKey(loadConfig({ MAILROOM_DATABASE_URL: file }));
      assert.equal(mode(dir), 0o700);
      assert.equal(mode(file), 0o600);
      assert.equal(mode(`${file}-wal`), 0o600);
      assert.equal(mode(join(dir, 'secret.key')), 0o600);
      await db.close();
    } finally {
      process.umask(old);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
