// A Layout created without an Alias gets one: its users name a layout by alias (LayoutTemplate), and the
// hosted service answers such a create with an alias of its own making (the official PHP client's suite
// creates a layout without one, then sends its Alias as another template's LayoutTemplate).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { LIMITS } from './fields.js';

const BASE_MAX = 80;

/** The name as an alias: lowercase letters, digits, `.`, `-`, `_`, starting with a letter. Linear in the name. */
export function aliasFromName(name: string): string {
  let out = '';
  for (const ch of name.toLowerCase()) {
    if (out.length >= BASE_MAX) break;
    const ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch === '.' || ch === '_' || ch === '-';
    if (ok) out += ch;
    else if (out !== '' && !out.endsWith('-')) out += '-';
  }
  while (out.endsWith('-')) out = out.slice(0, -1);
  if (!(out[0]! >= 'a' && out[0]! <= 'z')) out = out === '' ? 'layout' : `layout-${out}`;
  return out.slice(0, LIMITS.Alias);
}

/**
 * A free alias for a new layout of the server: the name's, else with -2, -3, ... A server holds at most
 * MAX_TEMPLATES_PER_SERVER templates, so reading its aliases is bounded and so is the search.
 */
export async function freeLayoutAlias(trx: Kysely<Database>, serverId: number, name: string): Promise<string> {
  const base = aliasFromName(name);
  const rows = await trx.selectFrom('templates').select('alias_key').where('server_id', '=', serverId).where('alias_key', 'is not', null).execute();
  const taken = new Set(rows.map((r) => r.alias_key));
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base.slice(0, LIMITS.Alias - 8)}-${n}`;
  return candidate;
}
