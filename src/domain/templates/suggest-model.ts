// SuggestedTemplateModel of POST /templates/validate: the model a template refers to, built from the
// placeholders it uses, with "<name>_Value" placeholder values (the hosted service's convention). Sections
// become objects, `{{#each}}` lists of one item, and a scope that only prints `{{.}}` a plain value.
import type { TemplateNode } from './parse.js';

type Obj = Record<string, unknown>;

interface Scope {
  obj: Obj;
  dotUsed: boolean;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function child(container: Obj, key: string): Obj {
  const existing = container[key];
  if (isObj(existing)) return existing;
  const created: Obj = {};
  container[key] = created;
  return created;
}

/** Walks to the object that holds the last segment, creating objects on the way. */
function holder(scope: Obj, parts: string[]): Obj {
  let at = scope;
  for (const p of parts.slice(0, -1)) at = child(at, p);
  return at;
}

function walk(nodes: TemplateNode[], scopes: Scope[]): void {
  for (const node of nodes) {
    if (node.kind === 'text') continue;
    const { ups, parts } = node.path;
    if (parts[0] === '@content') continue;
    const scope = scopes[scopes.length - 1 - ups];
    if (!scope) continue;
    if (node.kind === 'value') {
      if (parts.length === 0) {
        scope.dotUsed = true;
        continue;
      }
      const at = holder(scope.obj, parts);
      const key = parts[parts.length - 1]!;
      if (!(key in at)) at[key] = `${key}_Value`;
      continue;
    }
    if (parts.length === 0 || node.inverted) {
      // `{{#.}}` or `{{^name}}`: the children read from the same scope.
      if (node.inverted && parts.length > 0) {
        const at = holder(scope.obj, parts);
        const key = parts[parts.length - 1]!;
        if (!(key in at)) at[key] = false;
      }
      walk(node.children, scopes);
      continue;
    }
    const at = holder(scope.obj, parts);
    const key = parts[parts.length - 1]!;
    const existing = at[key];
    const previous = Array.isArray(existing) ? existing[0] : existing;
    const inner: Scope = { obj: isObj(previous) ? previous : {}, dotUsed: false };
    walk(node.children, [...scopes, inner]);
    let value: unknown = inner.obj;
    if (Object.keys(inner.obj).length === 0) value = inner.dotUsed || node.each ? `${key}_Value` : true;
    at[key] = node.each || Array.isArray(existing) ? [value] : value;
  }
}

/** Builds one suggested model from the parsed parts of a template (and of its layout). */
export function suggestModel(parts: TemplateNode[][]): Obj {
  const root: Scope = { obj: {}, dotUsed: false };
  for (const nodes of parts) walk(nodes, [root]);
  return root.obj;
}
