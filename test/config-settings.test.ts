// tier: unit
// Every setting is declared once, in src/settings.ts: the names loadConfig reads are exactly the declared
// ones, an undeclared MAILROOM_* name stops the start, and the table of docs/settings.md is the one the declarations give.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
      if (!kind) continue;
      checked++;
      if ('fallback' in kind && kind.fallback !== undefined) {
        const shown = kind.fallback === null ? 'unset' : String(kind.fallback);
        assert.ok(s.default.startsWith(shown), `${name}: the table's fallback ${shown} is not its README default ${s.default}`);
      }
      if (kind.type === 'int') {
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
    }
    assert.ok(checked >= 50, `only ${checked} settings have a kind`);
  });

  it('the settings table of docs/settings.md is current (npm run settings:readme rewrites it)', () => {
    const page = readFileSync(SETTINGS_PAGE, 'utf8');
    assert.equal(page, withSettings(page), 'docs/settings.md is stale: run npm run settings:readme');
  });
});
