// tier: unit
// The two settings of inbound processing (README, "Configuration").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.js';

describe('inbound settings', () => {
  it('defaults: inbound.<return path domain>, no spamd', () => {
    const c = loadConfig({ MAILROOM_RETURN_PATH_DOMAIN: 'bounces.example.com' });
    assert.equal(c.inboundDomain, 'inbound.bounces.example.com');
    assert.equal(c.spamd, null);
  });

  it('reads MAILROOM_INBOUND_DOMAIN and MAILROOM_SPAMD', () => {
    const c = loadConfig({ MAILROOM_INBOUND_DOMAIN: 'In.Example.COM', MAILROOM_SPAMD: '127.0.0.1:783' });
    assert.equal(c.inboundDomain, 'in.example.com');
    assert.deepEqual(c.spamd, { host: '127.0.0.1', port: 783 });
    assert.deepEqual(loadConfig({ MAILROOM_SPAMD: '[::1]:7830' }).spamd, { host: '::1', port: 7830 });
  });

  it('a bad value names its variable', () => {
    for (const [k, v] of [
      ['MAILROOM_INBOUND_DOMAIN', 'not a domain'],
      ['MAILROOM_SPAMD', 'localhost'],
      ['MAILROOM_SPAMD', 'localhost:0'],
    ]) {
      assert.throws(() => loadConfig({ [k]: v }), (e: unknown) => e instanceof ConfigError && e.variable === k, `${k}=${v}`);
    }
  });
});
