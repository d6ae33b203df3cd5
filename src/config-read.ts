// The one reader of the settings table (src/infra/settings-table.ts): every MAILROOM_* variable is read as
// its row's kind says (src/config-kinds.ts), defaulted (from the kind, or derived from other settings) and
// checked against the others, or the start stops with a message naming the variable.
import { ConfigError, type Env, readKind } from './config-kinds.js';
import type { Get, Setting } from './infra/settings/setting.js';
import { SETTINGS, type SettingName } from './infra/settings-table.js';

export { ConfigError, type Env } from './config-kinds.js';

const ROWS = Object.entries(SETTINGS) as Array<[SettingName, Setting]>;

/** Each setting's value, by name: read, defaulted and checked. */
export function readSettings(env: Env): Map<SettingName, unknown> {
  const values = new Map<string, unknown>();
  // A default may depend on a setting declared further down (the public URL on the HTTP certificate):
  // `get` reads a setting the first time it is asked for, wherever that is.
  const get: Get = (name) => {
    if (values.has(name)) return values.get(name);
    const s = (SETTINGS as Record<string, Setting | undefined>)[name];
    if (!s) throw new Error(`${name} is not in the settings table`);
    const raw = env[name];
    const v = raw === undefined || raw === '' ? undefined : raw;
    const fallback = v === undefined && s.derive ? s.derive(get) : undefined;
    const value = readKind(name, s.kind, v, fallback, env, get);
    values.set(name, value);
    return value;
  };
  for (const [name] of ROWS) get(name);
  for (const [name, s] of ROWS) {
    const value = values.get(name);
    const gate = s.required !== undefined && value === null ? gateOf(s) : null;
    if (gate !== null && get(gate) !== null) throw new ConfigError(name, s.required!);
    const problem = s.check?.(value, get);
    if (problem) throw new ConfigError(name, problem);
  }
  return values as Map<SettingName, unknown>;
}

/** The gate of a setting's group: the row with `gate` whose field starts with the same group. */
function gateOf(s: Setting): SettingName | null {
  const group = s.field?.split('.')[0];
  const gate = ROWS.find(([, r]) => r.gate && r.field?.split('.')[0] === group);
  return gate ? gate[0] : null;
}

/** The settings' values placed by their rows' `field`s; a group whose gate is unset is null. */
export function placeSettings(values: Map<SettingName, unknown>): Record<string, unknown> {
  const tree: Record<string, unknown> = {};
  for (const [name, s] of ROWS) {
    if (s.field === undefined) continue;
    const path = s.field.split('.');
    let node = tree;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]] = values.get(name);
  }
  for (const [name, s] of ROWS) if (s.gate && values.get(name) === null) tree[s.field!.split('.')[0]] = null;
  return tree;
}
