// The README's view of the settings table (src/infra/settings-table.ts, where every setting is declared):
// `npm run settings:readme` writes it into docs/settings.md, and test/config-settings.test.ts fails when
// that page is stale.
import { SETTINGS } from './infra/settings-table.js';
import type { Setting, SettingKind } from './infra/settings/setting.js';

export { SETTING_NAMES, SETTINGS, type SettingName } from './infra/settings-table.js';
export type { Setting, SettingKind } from './infra/settings/setting.js';

/** The values a kind takes, as the README's "values" column shows them; empty when the description says. */
export function kindText(kind: SettingKind): string {
  switch (kind.type) {
    case 'int':
      return `whole number, ${kind.min} to ${kind.max}`;
    case 'bool':
      return '`true` or `false`';
    case 'string':
      return 'text';
    case 'hostname':
      return 'host name';
    case 'url':
      return 'http(s) URL';
    case 'enum':
      return kind.values.map((v) => `\`${v}\``).join(', ');
    case 'token':
      return '16+ characters, no spaces';
    case 'ip-list':
      return 'IPs and CIDR ranges, comma-separated';
    case 'port-or-off':
      return 'port (0 to 65535) or `off`';
    case 'seconds':
      return `seconds, ${kind.min} to ${kind.max}`;
    case 'secret':
      return `${kind.minLength}+ characters`;
    case 'database-url':
      return 'file path or `postgres://` URL';
    case 'smtp-url':
      return '`smtp://` or `smtps://` URL';
    case 'path':
      return 'folder';
    case 'dns-servers':
      return '`system`, or `ip[:port]` comma-separated';
    case 'host-port':
      return '`host:port`';
    case 'tls-cert':
    case 'ca-file':
      return 'PEM certificate file';
    case 'tls-key':
      return 'PEM key file';
    case 'ip-pools':
      return 'pools (see meaning)';
    case 'report-address':
      return 'mail address';
    case 'recipient-list':
      return 'addresses, domains, `*.domain`; comma-separated';
  }
}

/** The README's settings table, generated from SETTINGS. */
export function settingsMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const lines = ['| variable | default | values | meaning |', '|---|---|---|---|'];
  let area = '';
  for (const [name, s] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
    if (s.area !== area) {
      area = s.area;
      lines.push(`| **${cell(area)}** | | | |`);
    }
    // A value is shown as code (it may hold <, * or _); a phrase such as "unset" as text.
    const value = /^(unset|generated|system|host name)\b/.test(s.default) ? s.default : `\`${s.default}\``;
    lines.push(`| ${name} | ${cell(value)} | ${cell(kindText(s.kind))} | ${cell(s.description)} |`);
  }
  return lines.join('\n');
}
