// tier: unit
// The DMARC settings (README, "Configuration") and the report addresses made from them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { baseReportAddress, domainReportAddress, matchReportAddress } from '../../../src/domain/dmarc/report-address.js';
import { ownSources } from '../../../src/domain/dmarc/own-sources.js';
import { createSecrets } from '../../../src/infra/crypto/secrets.js';

const env = { MAILROOM_DATABASE_URL: ':memory:' };

describe('DMARC settings and report addresses', () => {
  it('defaults to dmarc@ the inbound domain, 180 days, no extra own sources', () => {
    const c = loadConfig(env);
    assert.deepEqual(c.dmarc, { report: { local: 'dmarc', domain: c.inboundDomain }, retentionDays: 180, ownSources: [] });
  });

  it('takes an address, a retention and own sources, and refuses what it cannot use', () => {
    const c = loadConfig({ ...env, MAILROOM_DMARC_REPORT_ADDRESS: 'Reports@DMARC.Example.com', MAILROOM_DMARC_RETENTION_DAYS: '30', MAILROOM_DMARC_OWN_SOURCES: '203.0.113.0/24, 2001:db8::1' });
    assert.deepEqual(c.dmarc, { report: { local: 'reports', domain: 'dmarc.example.com' }, retentionDays: 30, ownSources: ['203.0.113.0/24', '2001:db8::1'] });
    for (const bad of ['dmarc', 'a+b@example.com', '@example.com', 'dmarc@exa mple.com', 'x@']) {
      assert.throws(() => loadConfig({ ...env, MAILROOM_DMARC_REPORT_ADDRESS: bad }), /MAILROOM_DMARC_REPORT_ADDRESS/, bad);
    }
    assert.throws(() => loadConfig({ ...env, MAILROOM_DMARC_RETENTION_DAYS: '3' }), /MAILROOM_DMARC_RETENTION_DAYS/);
    assert.throws(() => loadConfig({ ...env, MAILROOM_DMARC_OWN_SOURCES: '10.0.0.0/40' }), /MAILROOM_DMARC_OWN_SOURCES/);
  });

  it('signs each domain sub-address, matches it in any case, and refuses a wrong tag', () => {
    const ctx = { config: loadConfig({ ...env, MAILROOM_DMARC_REPORT_ADDRESS: 'dmarc@reports.example' }), secrets: createSecrets('k'.repeat(40)) };
    assert.equal(baseReportAddress(ctx), 'dmarc@reports.example');
    const a = domainReportAddress(ctx, 42);
    assert.match(a, /^dmarc\+42\.[0-9a-z_-]{12}@reports\.example$/);
    assert.deepEqual(matchReportAddress(ctx, a.toUpperCase()), { address: a, domainId: 42 });
    assert.deepEqual(matchReportAddress(ctx, 'DMARC@reports.example.'), { address: 'dmarc@reports.example.', domainId: null });
    assert.equal(matchReportAddress(ctx, a.replace('+42.', '+43.')), null, 'another domain id with this tag');
    assert.equal(matchReportAddress(ctx, a.replace('@reports.example', '@other.example')), null);
    assert.equal(matchReportAddress(ctx, 'postmaster@reports.example'), null);
  });

  it('counts IP pool addresses, the settings own sources and this host addresses as own', () => {
    const config = loadConfig({ ...env, MAILROOM_IP_POOLS: 'main=127.0.0.1', MAILROOM_DMARC_OWN_SOURCES: '203.0.113.0/24' });
    const own = ownSources({ config });
    assert.equal(own('203.0.113.77'), true);
    assert.equal(own('127.0.0.1'), true);
    assert.equal(own('198.51.100.1'), false);
    assert.equal(own('not an ip'), false);
  });
});
