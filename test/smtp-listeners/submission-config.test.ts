// The submission settings: defaults, `off`, and the TLS files checked at start like the inbound listener's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { CERT, KEY } from './helpers.js';

describe('submission settings', () => {
  it('defaults to 127.0.0.1:2587 without TLS, and `off` turns the listener off', () => {
    const c = loadConfig({}).submission;
    assert.deepEqual({ host: c.host, port: c.port, tlsPort: c.tlsPort, tls: c.tls, allowInsecureAuth: c.allowInsecureAuth }, { host: '127.0.0.1', port: 2587, tlsPort: null, tls: null, allowInsecureAuth: false });
    assert.equal(loadConfig({ MAILROOM_SUBMISSION_PORT: 'off' }).submission.port, null);
  });

  it('checks the certificate at start and needs it for the implicit-TLS port', () => {
    const c = loadConfig({ MAILROOM_SUBMISSION_TLS_CERT: CERT, MAILROOM_SUBMISSION_TLS_KEY: KEY, MAILROOM_SUBMISSION_TLS_PORT: '465' }).submission;
    assert.equal(c.tlsPort, 465);
    assert.ok(c.tls?.cert.includes('BEGIN CERTIFICATE'));
    const fails = (env: Record<string, string>, variable: string) =>
      assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && e.variable === variable);
    fails({ MAILROOM_SUBMISSION_TLS_PORT: '465' }, 'MAILROOM_SUBMISSION_TLS_PORT');
    fails({ MAILROOM_SUBMISSION_TLS_CERT: CERT }, 'MAILROOM_SUBMISSION_TLS_KEY');
    fails({ MAILROOM_SUBMISSION_TLS_CERT: KEY, MAILROOM_SUBMISSION_TLS_KEY: KEY }, 'MAILROOM_SUBMISSION_TLS_CERT');
    fails({ MAILROOM_SUBMISSION_TLS_CERT: CERT, MAILROOM_SUBMISSION_TLS_KEY: '/nonexistent.pem' }, 'MAILROOM_SUBMISSION_TLS_KEY');
    fails({ MAILROOM_SUBMISSION_PORT: 'ninety' }, 'MAILROOM_SUBMISSION_PORT');
  });
});
