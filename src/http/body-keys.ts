// Body keys in any case (docs/reference/api-conventions.md, "Requests and responses"). The hosted service binds
// JSON property names case-insensitively, and official clients rely on it: the PHP client sends `name`,
// `fromEmail`, `htmlBody`; the Ruby gem's older paths send other spellings. Each route's body schema names its
// keys; this module compiles that schema once into a key map and renames a body's keys to the schema's
// spelling before validation, at every depth the schema describes (Attachments, Headers items, HttpAuth,
// Triggers, Messages...). What the schema leaves free-form (a Record such as Metadata, an open object such as
// TemplateModel, a schema-less value) is not entered: the user's own keys keep their case.
//
// Two keys that differ only by case name the same field: the one later in the document wins, as for two
// identical keys (JSON.parse keeps the last) and as a binder that assigns the property on each occurrence
// (the hosted service's) does.
//
// Cost: one look-up per key of the described objects (the exact spelling first, so a body already in the
// schema's case costs a Map hit per key and no copy); an object is rebuilt only when one of its keys is
// renamed. Strings are never scanned.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';

interface Field {
  name: string;
  node: KeyNode | null;
}

/** What a schema says about the keys of a value: the fields of an object, the items of an array. */
interface KeyNode {
  /** Canonical name (and each alias met, see fieldOf) -> field; null when the schema describes no object fields here. */
  exact: Map<string, Field> | null;
  /** Aliases added to `exact`. */
  aliases: number;
  /** Lowercase name -> field. */
  folded: Map<string, Field> | null;
  items: KeyNode | null;
}

type Schema = Record<string, unknown>;

const isSchema = (s: unknown): s is Schema => s !== null && typeof s === 'object' && !Array.isArray(s);

function variants(s: Schema): Schema[] {
  const out: Schema[] = [];
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[k];
    if (Array.isArray(list)) for (const v of list) if (isSchema(v)) out.push(v);
  }
  return out;
}

function merge(into: KeyNode, from: KeyNode): void {
  if (from.items) {
    if (into.items) merge(into.items, from.items);
    else into.items = from.items;
  }
  if (!from.exact) return;
  into.exact ??= new Map();
  into.folded ??= new Map();
  for (const [name, f] of from.exact) addField(into, name, f.node);
}

function addField(node: KeyNode, name: string, child: KeyNode | null): void {
  const lower = name.toLowerCase();
  const had = node.folded!.get(lower);
  if (had && had.name !== name) throw new Error(`body schema names both '${had.name}' and '${name}'`);
  if (had) {
    if (child) {
      if (had.node) merge(had.node, child);
      else had.node = child;
    }
    return;
  }
  const f: Field = { name, node: child };
  node.exact!.set(name, f);
  node.folded!.set(lower, f);
}

/** The key map of a JSON schema; null when it describes no keys (nothing to rename at or below it). */
export function compileKeyMap(schema: unknown, depth = 0): KeyNode | null {
  if (!isSchema(schema) || depth > 32) return null;
  const node: KeyNode = { exact: null, folded: null, items: null, aliases: 0 };
  const props = schema.properties;
  if (isSchema(props) && Object.keys(props).length > 0) {
    node.exact = new Map();
    node.folded = new Map();
    for (const [name, sub] of Object.entries(props)) addField(node, name, compileKeyMap(sub, depth + 1));
  }
  if (isSchema(schema.items)) node.items = compileKeyMap(schema.items, depth + 1);
  for (const v of variants(schema)) {
    const sub = compileKeyMap(v, depth + 1);
    if (sub) merge(node, sub);
  }
  return node.exact || node.items ? node : null;
}

function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  // A key "__proto__" from JSON.parse is data; plain assignment would set the prototype instead.
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

// Spellings met besides the schema's own are remembered per object node (the PHP client sends the same
// camelCase keys on every request), up to a bound so that a stranger's keys cannot grow the map.
const MAX_ALIASES = 256;

function fieldOf(node: KeyNode, known: Map<string, Field>, k: string): Field | undefined {
  const f = known.get(k);
  if (f) return f;
  const g = node.folded!.get(k.toLowerCase());
  if (g && node.aliases < MAX_ALIASES) {
    known.set(k, g);
    node.aliases++;
  }
  return g;
}

/** The value with the keys the schema describes in the schema's spelling. Values are rewritten in place;
 * an object with a renamed key is replaced by a copy in the same key order. */
export function canonicalKeys(value: unknown, node: KeyNode): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = node.items;
    if (items) for (let i = 0; i < value.length; i++) value[i] = canonicalKeys(value[i], items);
    return value;
  }
  const exact = node.exact;
  if (!exact) return value;
  const o = value as Record<string, unknown>;
  let renamed = false;
  for (const k in o) {
    const f = fieldOf(node, exact, k);
    if (!f) continue;
    if (f.name !== k) renamed = true;
    if (f.node) {
      const v = o[k];
      if (v !== null && typeof v === 'object') {
        const nv = canonicalKeys(v, f.node);
        if (nv !== v) o[k] = nv;
      }
    }
  }
  if (!renamed) return value;
  const out: Record<string, unknown> = {};
  for (const k in o) {
    const name = fieldOf(node, exact, k)?.name ?? k;
    // Two spellings of one field: the later wins, at the place of the first.
    setKey(out, name, o[k]);
  }
  return out;
}

/**
 * onRoute hook: a route with a JSON body schema gets a preValidation step, ahead of its own, that puts the
 * body's keys in the schema's spelling. Routes whose schema only documents the body (the send routes, whose
 * domain validates each message) are covered the same way.
 */
export function addBodyKeyCanonicalizer(route: RouteOptions): void {
  const node = compileKeyMap(route.schema?.body);
  if (!node) return;
  const step = (req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const body = req.body;
    if (body !== null && typeof body === 'object') req.body = canonicalKeys(body, node);
    done();
  };
  const own = route.preValidation;
  route.preValidation = own === undefined ? [step] : Array.isArray(own) ? [step, ...own] : [step, own];
}
