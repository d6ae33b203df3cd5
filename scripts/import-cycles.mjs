// The import structure of src/, as docs/architecture.md ("Layers") draws it. Fails (exit 1) on:
// - an import circle between files (type imports count too: a circle of types is still a knot in the map);
// - a circle between the folders of src/domain (area A imports B and B imports A, directly or around a longer
//   loop), counting run-time imports: a type shared across an area's boundary fixes no load order;
// - an arrow running up: a file of domain/, infra/, http/ or smtp-listeners/ importing the composition root
//   (the files directly in src/: cli*.ts, serve.ts, worker.ts, context.ts, config.ts, ...), infra/ importing
//   domain/, http/ or smtp-listeners/, or domain/ importing an edge. Type-only imports count: the types the
//   layers share live below them (domain/app-context.ts, infra/config-types.ts).
// Prints every circle and upward import.
//   node scripts/import-cycles.mjs [src-folder]
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? resolve(new URL('..', import.meta.url).pathname, 'src'));
const files = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (p.endsWith('.ts')) files.push(p);
  }
})(root);

// Static imports and re-exports that load a module at run time.
const IMPORT = /^\s*(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm;
const edges = new Map();
const runEdges = new Map();
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  const out = new Set();
  const run = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(dirname(f), m[1].replace(/\.js$/, '.ts'));
    // `import type ...` and `import { type A, type B } ...` load nothing at run time.
    const clause = m[0].replace(/^\s*(import|export)\s+/, '').split(/\sfrom\s/)[0].trim();
    const typeOnly = clause.startsWith('type ') || (/^\{[^}]*\}$/.test(clause) && clause.replace(/[{}\s]/g, '').split(',').filter(Boolean).every((x) => x.startsWith('type')));
    if (!typeOnly) run.add(target);
    out.add(target);
  }
  edges.set(f, [...out].filter((t) => files.includes(t)));
  runEdges.set(f, [...run].filter((t) => files.includes(t)));
}

/** Strongly connected components with more than one member (Tarjan). */
function circles(nodes, next) {
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], on = new Set(), found = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index++); stack.push(v); on.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v);
      if (c.length > 1 || next(v).includes(v)) found.push(c);
    }
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  return found;
}

const rel = (f) => relative(root, f);
const fileCircles = circles(files, (f) => edges.get(f) ?? []);

// Folder level: src/domain/<area>, and the other top-level folders as wholes (http, infra, smtp-listeners).
const folderOf = (f) => {
  const parts = rel(f).split('/');
  return parts[0] === 'domain' && parts.length > 2 ? `domain/${parts[1]}` : parts.length > 1 ? parts[0] : '(root)';
};
const folderEdges = new Map();
for (const [f, ts] of runEdges) {
  const a = folderOf(f);
  if (!folderEdges.has(a)) folderEdges.set(a, new Set());
  for (const t of ts) if (folderOf(t) !== a) folderEdges.get(a).add(folderOf(t));
}
if (process.env.DEBUG) for (const [a, s] of folderEdges) console.log(a, "->", [...s].join(" "));
const folderCircles = circles([...folderEdges.keys()], (a) => [...(folderEdges.get(a) ?? [])]);

// Layers, top to bottom; each may import only those below it (the edges not each other).
const LAYER = { domain: 1, infra: 0, http: 2, 'smtp-listeners': 2 };
const layerOf = (f) => {
  const parts = rel(f).split('/');
  return parts.length === 1 ? 3 : (LAYER[parts[0]] ?? null);
};
const upward = [];
for (const [f, ts] of edges) {
  const a = layerOf(f);
  if (a === null || a === 3) continue;
  for (const t of ts) {
    const b = layerOf(t);
    if (b !== null && (b > a || (b === a && a === 2 && rel(f).split('/')[0] !== rel(t).split('/')[0]))) upward.push([f, t]);
  }
}

for (const c of fileCircles) console.log(`file circle: ${c.map(rel).join(' <-> ')}`);
for (const c of folderCircles) console.log(`folder circle: ${c.join(' <-> ')}`);
for (const [f, t] of upward) console.log(`upward import: ${rel(f)} -> ${rel(t)}`);
console.log(`${files.length} files: ${fileCircles.length} file circles, ${folderCircles.length} folder circles, ${upward.length} upward imports`);
process.exit(fileCircles.length + folderCircles.length + upward.length > 0 ? 1 : 0);
