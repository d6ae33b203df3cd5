// tier: unit
// MAILROOM_CAPTURE_DIR (README, "First send"): a folder, and never together with a relay, since one of the
// two would then be ignored without a word.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('MAILROOM_CAPTURE_DIR', () => {
  it('is off by default and names a folder when set', () => {
    assert.equal(loadConfig({}).captureDir, null);
    assert.equal(loadConfig({ MAILROOM_CAPTURE_DIR: 'capture' }).captureDir, 'capture');
  });

  it('refuses to be combined with MAILROOM_SMTP_RELAY', () => {
    assert.throws(
      () => loadConfig({ MAILROOM_CAPTURE_DIR: 'capture', MAILROOM_SMTP_RELAY: 'smtp://relay.example:587' }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'MAILROOM_CAPTURE_DIR' && /not both/.test(e.message),
    );
  });
});
