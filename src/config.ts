// Typed configuration read once from the environment. Every variable is optional; a bad value stops the
// process with a message naming the variable (see docs/settings.md). Each setting is a row of the settings
// table (src/infra/settings-table.ts), which gives its kind, its default and its place in Config; this
// module adds only what is not a setting.
import { type Env, placeSettings, readSettings } from './config-read.js';
import { ConfigError } from './config-error.js';
import { nearestName, unknownVariables } from './config-unknown.js';
import type { Config } from './infra/config-types.js';
import { SETTING_NAMES, SETTINGS } from './infra/settings-table.js';

export { ConfigError } from './config-error.js';
export type { Config, DnsServer, InboundTls, IpPool, Role, SmtpRelay, SmtpSlotLimits, SubmissionConfig } from './infra/config-types.js';

/**
 * Reads the configuration; an unknown MAILROOM_* variable (a misspelling) stops the start naming the nearest
 * declared one. The declared names are the settings table's, the only names the reader accepts.
 */
export function loadConfig(env: Env = process.env): Config {
  const values = readSettings(env);
  const unknown = unknownVariables(env, SETTING_NAMES);
  if (unknown.length > 0) {
    const name = unknown[0];
    throw new ConfigError(name, `unknown setting (did you mean ${nearestName(name, SETTING_NAMES)}?)`);
  }
  const fromTable = placeSettings(values) as Omit<Config, 'mxPort' | 'mtaStsPort'>;
  // Fixed by the protocols, not settings (infra/config-types.ts, Fixed); tests override them on the Config.
  return { ...fromTable, mxPort: 25, mtaStsPort: 443, inboundSlots: { ...fromTable.inboundSlots, authMs: null } };
}

/**
 * MAILROOM_DATABASE_URL as given, unchecked, for the message about a failed start (which may be this very
 * setting's ConfigError).
 */
export function givenDatabaseUrl(env: Env = process.env): string {
  return env.MAILROOM_DATABASE_URL || SETTINGS.MAILROOM_DATABASE_URL.kind.fallback;
}
