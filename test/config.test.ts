// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 8080);
    assert.equal(c.databaseUrl, './data/mailroom.db');
    assert.equal(c.publicUrl, 'http://localhost:8080');
    assert.equal(c.smtpRelay, null);
    assert.equal(c.mxPort, 25);
    assert.equal(c.inboundSmtpPort, 2525);
    assert.equal(c.returnPathDomain, 'bounces.localhost');
    assert.equal(c.spfInclude, 'spf.bounces.localhost');
    assert.equal(c.webhookAllowPrivate, false);
    assert.equal(c.logLevel, 'info');
  });

  it('makes the default public URL follow MAILROOM_PORT (issue 27)', () => {
    assert.equal(loadConfig({ MAILROOM_PORT: '9090' }).publicUrl, 'http://localhost:9090');
    assert.equal(loadConfig({ MAILROOM_PORT: '9090', MAILROOM_PUBLIC_URL: 'https://mail.example.com/' }).publicUrl, 'https://mail.example.com');
    assert.equal(loadConfig({ MAILROOM_PORT: '0' }).publicUrl, 'http://localhost:8080', 'an ephemeral port is not known before it is bound');
  });

  it('parses relay URLs and DNS servers', () => {
    const c = loadConfig({ MAILROOM_SMTP_RELAY: 'smtps://u%40x:p%3Aw@relay.example:2465', MAILROOM_DNS_SERVERS: '127.0.0.1:5353, 10.0.0.1' });
    assert.deepEqual(c.smtpRelay, { url: 'smtps://u%40x:p%3Aw@relay.example:2465', secure: true, host: 'relay.example', port: 2465, user: 'u@x', pass: 'p:w' });
    assert.deepEqual(c.dnsServers, [{ host: '127.0.0.1', port: 5353 }, { host: '10.0.0.1', port: 53 }]);
  });

  it('a bad value names its variable', () => {
    const cases: Record<string, string> = {
      MAILROOM_PORT: 'eighty',
      MAILROOM_SMTP_RELAY: 'http://x',
      MAILROOM_DNS_SERVERS: 'not-an-ip',
      MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'perhaps',
      MAILROOM_LOG_LEVEL: 'loud',
      MAILROOM_PUBLIC_URL: 'ftp://x',
      MAILROOM_RETURN_PATH_DOMAIN: 'bad domain',
      MAILROOM_SERVER_TOKEN: 'short',
      MAILROOM_DATABASE_URL: 'mysql://x',
    };
    for (const [k, v] of Object.entries(cases)) {
      assert.throws(() => loadConfig({ [k]: v }), (e: unknown) => e instanceof ConfigError && e.variable === k, k);
    }
  });

  it('the delivery ports are fixed, not settings: 25 for MX (tests override the Config)', () => {
    assert.throws(() => loadConfig({ MAILROOM_MX_PORT: '2525' }), (e: unknown) => e instanceof ConfigError && e.variable === 'MAILROOM_MX_PORT');
  });

  it('reads enum settings without regard to case', () => {
    assert.equal(loadConfig({ MAILROOM_LOG_LEVEL: 'WARN' }).logLevel, 'warn');
  });

  it('reads MAILROOM_TRUSTED_PROXIES as addresses and CIDR ranges, none by default', () => {
    assert.deepEqual(loadConfig({}).trustedProxies, []);
    assert.deepEqual(loadConfig({ MAILROOM_TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8,::1, fd00::/8 ' }).trustedProxies, ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']);
    for (const bad of ['proxy.example', '10.0.0.0/33', '::1/129', '127.0.0.1,', '10.0.0.0/x']) {
      assert.throws(() => loadConfig({ MAILROOM_TRUSTED_PROXIES: bad }), (e: unknown) => e instanceof ConfigError && e.variable === 'MAILROOM_TRUSTED_PROXIES', bad);
    }
  });
});
