// tier: unit
// Every setting is declared once, in src/infra/settings-table.ts (its areas in src/infra/settings/): the
// names loadConfig reads are exactly the declared ones, each is read by its kind into the Config field its row
// names, an undeclared MAILROOM_* name stops the start, and the table of docs/settings.md is the one the
// declarations give.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { SETTING_NAMES, SETTINGS, type Setting } from '../src/settings.js';
import { SETTINGS_PAGE, withSettings } from '../scripts/settings-readme.js';

/** The MAILROOM_* names loadConfig looks up in `env`. */
function namesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string' && key.startsWith('MAILROOM_')) read.add(key);
      return target[key as string];
    },
  });
  loadConfig(recording);
  return read;
}

describe('settings declared once', () => {
  it('loadConfig reads every declared setting and nothing undeclared', () => {
    // Both relay and capture are read only when the other is set: a configuration with a capture folder
    // reads MAILROOM_SMTP_RELAY too (to refuse both).
    const read = new Set([...namesRead({}), ...namesRead({ MAILROOM_CAPTURE_DIR: '/tmp/capture' })]);
    assert.deepEqual([...read].filter((n) => !SETTING_NAMES.has(n)).sort(), [], 'read but not declared');
    assert.deepEqual([...SETTING_NAMES].filter((n) => !read.has(n)).sort(), [], 'declared but never read');
  });

  it('refuses an undeclared name and names the nearest declared one', () => {
    assert.throws(
      () => loadConfig({ MAILROOM_DELIVERY_LEASE_SECOND: '5' }),
      (e: unknown) => e instanceof ConfigError && /did you mean MAILROOM_DELIVERY_LEASE_SECONDS\?/.test(e.message),
    );
  });

  it('the settings formerly read in domain code are settings like the others', () => {
    const c = loadConfig({ MAILROOM_EHLO_NAME: 'mx.example.com', MAILROOM_DELIVERY_LEASE_SECONDS: '7', MAILROOM_DATA_REMOVAL_BATCH: '1' });
    assert.deepEqual([c.ehloName, c.deliveryLeaseMs, c.dataRemovalBatch], ['mx.example.com', 7000, 1]);
    const d = loadConfig({});
    assert.deepEqual([d.ehloName, d.deliveryLeaseMs, d.dataRemovalBatch], [null, 30_000, 500]);
    assert.throws(() => loadConfig({ MAILROOM_DATA_REMOVAL_BATCH: 'lots' }), ConfigError);
  });

  it('the settings a row refers to (in its kind, its default or its check) are declared', () => {
    let refs = 0;
    for (const [name, s] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
      const text = JSON.stringify(s.kind) + String(s.derive ?? '') + String(s.check ?? '');
      for (const [ref] of text.matchAll(/MAILROOM_[A-Z_]*[A-Z]/g)) {
        assert.ok(SETTING_NAMES.has(ref), `${name} refers to ${ref}, which is not declared`);
        refs++;
      }
    }
    assert.ok(refs >= 20, `only ${refs} references found`);
  });

  it('every row of every area file of src/infra/settings/ is in the table, once', async () => {
    // The table joins the area files by spreading them, where a name declared twice would be taken silently
    // and an area file left out would be unknown names at start.
    const folder = new URL('../src/infra/settings/', import.meta.url);
    // The table imported the way the area files are (by URL, at run time), so that both come from one module
    // graph even where the test runs bundled (scripts/test-bundle.mjs) and its static imports are copies.
    const { SETTINGS, SETTING_NAMES } = (await import(new URL('../src/settings.js', import.meta.url).href)) as typeof import('../src/settings.js');
    let rows = 0;
    for (const file of readdirSync(folder).filter((f) => f.endsWith('.ts') && f !== 'setting.ts')) {
      const area = (await import(new URL(file.replace(/\.ts$/, '.js'), folder).href)) as Record<string, Record<string, Setting>>;
      const exported = Object.values(area);
      assert.equal(exported.length, 1, `${file}: one table of rows`);
      for (const [name, row] of Object.entries(exported[0]!)) {
        assert.equal((SETTINGS as Record<string, Setting>)[name], row, `${file}: ${name} is not the table's row`);
        rows++;
      }
    }
    assert.equal(rows, SETTING_NAMES.size, 'a name is declared in two area files');
  });

  it('each declaration has an area, a default and a description, grouped by area', () => {
    const areas: string[] = [];
    for (const [name, s] of Object.entries(SETTINGS)) {
      assert.ok(s.area && s.default && s.description, name);
      if (areas[areas.length - 1] !== s.area) {
        assert.ok(!areas.includes(s.area), `${name}: its area ${s.area} is declared in two places`);
        areas.push(s.area);
      }
    }
  });

  it('each kind\'s default is the one the README states, and a value outside the kind stops the start naming the setting', () => {
    const refuses = (name: string, value: string, why: RegExp) =>
      assert.throws(
        () => loadConfig({ [name]: value }),
        (e: unknown) => e instanceof ConfigError && e.variable === name && why.test(e.message),
        `${name}=${value}`,
      );
    let checked = 0;
    for (const [name, s] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
      const kind = s.kind;
      checked++;
      if ('fallback' in kind && kind.fallback !== undefined) {
        const shown = kind.fallback === null ? 'unset' : String(kind.fallback);
        assert.ok(s.default.startsWith(shown), `${name}: the table's fallback ${shown} is not its README default ${s.default}`);
      }
      if (kind.type === 'int' || kind.type === 'seconds') {
        refuses(name, 'lots', /expected a whole number, got "lots"/);
        refuses(name, '-1', /expected a whole number/);
        refuses(name, String(kind.max + 1), new RegExp(`must be between ${kind.min} and ${kind.max}, got ${kind.max + 1}`));
        if (kind.min > 0) refuses(name, String(kind.min - 1), /must be between/);
      }
      if (kind.type === 'port-or-off') refuses(name, '65536', /must be between 0 and 65535/);
      if (kind.type === 'bool') refuses(name, 'perhaps', /expected true or false, got "perhaps"/);
      if (kind.type === 'enum') refuses(name, 'loud', new RegExp(`one of ${kind.values.join(', ')}; got "loud"`));
      if (kind.type === 'hostname') refuses(name, 'bad domain', /not a valid host name/);
      if (kind.type === 'url') refuses(name, 'ftp://x', /expected an absolute http\(s\) URL/);
      if (kind.type === 'token') refuses(name, 'short', /at least 16 characters/);
      if (kind.type === 'ip-list') refuses(name, '10.0.0.0/33', /expected IP addresses or CIDR ranges/);
      if (kind.type === 'secret') refuses(name, 'short', new RegExp(`at least ${kind.minLength} characters`));
      if (kind.type === 'database-url') refuses(name, 'mysql://x', /expected a file path/);
      if (kind.type === 'smtp-url') refuses(name, 'http://x', /unsupported scheme/);
      if (kind.type === 'dns-servers') refuses(name, 'resolver.example', /not an ip\[:port\]/);
      if (kind.type === 'host-port') refuses(name, 'spamd', /expected host:port/);
      if (kind.type === 'ca-file') refuses(name, '/nonexistent/ca.pem', /cannot read "\/nonexistent\/ca.pem"/);
      // A certificate and its key: both or neither, and the one missing is named.
      if (kind.type === 'tls-cert') {
        assert.throws(() => loadConfig({ [name]: '/nonexistent/cert.pem' }), (e: unknown) => e instanceof ConfigError && e.variable === kind.key && /must be set together/.test(e.message));
        assert.throws(() => loadConfig({ [kind.key]: '/nonexistent/key.pem' }), (e: unknown) => e instanceof ConfigError && e.variable === name && /must be set together/.test(e.message));
        assert.throws(() => loadConfig({ [name]: '/nonexistent/cert.pem', [kind.key]: '/nonexistent/key.pem' }), (e: unknown) => e instanceof ConfigError && e.variable === name && /cannot read/.test(e.message));
      }
      if (kind.type === 'tls-key') assert.equal((SETTINGS as Record<string, Setting>)[kind.cert].kind.type, 'tls-cert', `${name}: read with ${kind.cert}`);
      if (kind.type === 'ip-pools') refuses(name, 'bad pool=1.2.3.4', /./);
      if (kind.type === 'report-address') refuses(name, 'a+b@example.com', /expected an address/);
      if (kind.type === 'recipient-list') refuses(name, 'a b', /not an address, a domain or \*\.domain/);
    }
    assert.equal(checked, SETTING_NAMES.size, 'every setting has a kind');
  });

  it('each value lands in the Config field its row names, which the Config type derives from the table', () => {
    // A value each kind reads unchanged (or in milliseconds), set on every setting that takes one.
    const sample: Record<string, [string, unknown]> = { int: ['7', 7], seconds: ['7', 7000], bool: ['true', true], token: ['sample-token-0123456789', 'sample-token-0123456789'] };
    let placed = 0;
    for (const [name, s] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
      const given = sample[s.kind.type];
      if (!given || !s.field || (s.kind.type === 'int' && s.kind.min > 7) || (s.kind.type === 'seconds' && s.kind.atMost)) continue;
      const c = loadConfig({ [name]: given[0] }) as unknown as Record<string, unknown>;
      const value = s.field.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | null)?.[part], c);
      const gated = s.field.includes('.') && c[s.field.split('.')[0]] === null;
      if (!gated) assert.deepEqual(value, given[1], `${name} -> ${s.field}`);
      placed++;
    }
    assert.ok(placed >= 30, `only ${placed} settings checked`);
    // Not settings: fixed by the protocols, overridden only on a Config a test builds.
    const d = loadConfig({});
    assert.deepEqual([d.mxPort, d.mtaStsPort, d.inboundSlots.authMs], [25, 443, null]);
  });

  it('a group with a gate is null while the gate is unset, and requires its settings once it is set', () => {
    const off = loadConfig({ MAILROOM_DEV_SMTP_SERVER: 'dev', MAILROOM_RELEASE_RELAY_PORT: '2525' });
    assert.deepEqual([off.devSmtp, off.releaseRelay], [null, null]);
    assert.throws(
      () => loadConfig({ MAILROOM_DEV_SMTP_PORT: '0' }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'MAILROOM_DEV_SMTP_SERVER' && /name the Sandbox server/.test(e.message),
    );
    assert.deepEqual(loadConfig({ MAILROOM_DEV_SMTP_PORT: '0', MAILROOM_DEV_SMTP_SERVER: ' dev ' }).devSmtp, { port: 0, server: 'dev', host: '127.0.0.1', allowRemote: false });
    const relay = loadConfig({ MAILROOM_RELEASE_RELAY_HOST: 'smtp.example.com', MAILROOM_RELEASE_RELAY_TLS: 'tls' }).releaseRelay;
    assert.deepEqual(relay, { host: 'smtp.example.com', port: 465, tls: 'tls', user: null, pass: null, allowedRecipients: [] }, 'implicit TLS defaults to 465');
  });

  it('a default derived from other settings follows them', () => {
    const c = loadConfig({ MAILROOM_RETURN_PATH_DOMAIN: 'rp.example.com', MAILROOM_PORT: '9000' });
    assert.deepEqual([c.inboundDomain, c.spfInclude, c.dmarc.report.domain, c.publicUrl], ['inbound.rp.example.com', 'spf.rp.example.com', 'inbound.rp.example.com', 'http://localhost:9000']);
    assert.equal(loadConfig({ MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS: '5', MAILROOM_HTTP_HEADERS_TIMEOUT_SECONDS: '9' }).http.headersTimeoutMs, 5000, 'headers within the request timeout');
  });

  it('the settings table of docs/settings.md is current (npm run settings:readme rewrites it)', () => {
    const page = readFileSync(SETTINGS_PAGE, 'utf8');
    assert.equal(page, withSettings(page), 'docs/settings.md is stale: run npm run settings:readme');
  });
});
