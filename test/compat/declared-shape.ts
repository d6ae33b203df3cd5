// Reads the shapes the official `postmark` client declares (its dist/**/*.d.ts) so that the compatibility
// tier asserts what the client's types promise, not a copy of them typed by hand: every required property
// of the named interface or class is present, with the primitive type declared (numbers, booleans,
// strings or null, arrays).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const MODELS = join(dirname(require.resolve('postmark')), 'client', 'models');

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) files(p, out);
    else if (p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

export interface DeclaredProperty {
  name: string;
  type: string;
  optional: boolean;
}

/** Declared top-level properties of `export interface Name` / `export declare class Name` (null if absent). */
export function declared(name: string): DeclaredProperty[] {
  for (const f of files(MODELS)) {
    const text = readFileSync(f, 'utf8');
    const m = new RegExp(`export (?:interface|declare class) ${name}(?:<[^>]*>)?(?: (?:extends|implements) [^{]+)? \\{\\n([\\s\\S]*?)\\n\\}`).exec(text);
    if (!m) continue;
    const props: DeclaredProperty[] = [];
    for (const line of m[1].split('\n')) {
      const p = /^ {4}(\w+)(\?)?: (.+);$/.exec(line);
      if (p) props.push({ name: p[1], optional: Boolean(p[2]), type: p[3] });
    }
    return props;
  }
  throw new Error(`the postmark client declares no ${name}`);
}

function typeMatches(type: string, v: unknown): boolean {
  if (v === null) return !/^(number|boolean)$/.test(type) || type.includes('null');
  if (type.endsWith('[]') || type.startsWith('Array<')) return Array.isArray(v);
  if (type === 'number') return typeof v === 'number';
  if (type === 'boolean') return typeof v === 'boolean';
  if (type === 'string') return typeof v === 'string';
  return true; // enums, nested models, unions: presence is what is checked
}

/** Problems of `value` against the declared shape `name` (empty when it conforms). */
export function shapeProblems(name: string, value: unknown, except: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return [`${name}: not an object`];
  const v = value as Record<string, unknown>;
  const out: string[] = [];
  for (const p of declared(name)) {
    if (except.includes(p.name)) continue;
    if (!(p.name in v) || v[p.name] === undefined) {
      if (!p.optional) out.push(`${name}.${p.name} missing`);
      continue;
    }
    if (!typeMatches(p.type, v[p.name])) out.push(`${name}.${p.name}: ${JSON.stringify(v[p.name])?.slice(0, 60)} is not ${p.type}`);
  }
  return out;
}
