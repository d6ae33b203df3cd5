#!/usr/bin/env node
// Counts the assertions written in the test code: every `assert(...)`, `assert.<fn>(...)` and `expect(...)`
// call site under test/ (helpers and fixtures included, since tests assert through them). A call inside a
// loop counts once: this is a count of what the tests check, not of how often they check it. Comments are
// left out. Used to show that a change to the tests lost no assertion (compare the totals before and after).
//   node scripts/count-assertions.mjs            total, and per top-level folder
//   node scripts/count-assertions.mjs --files    one line per file
//   node scripts/count-assertions.mjs DIR        another tree (e.g. a checkout of an older commit)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const args = process.argv.slice(2);
const perFile = args.includes('--files');
const root = args.find((a) => !a.startsWith('--')) ?? new URL('../test', import.meta.url).pathname;

function collect(p, out) {
  if (statSync(p).isDirectory()) for (const e of readdirSync(p).sort()) collect(join(p, e), out);
  else if (/\.(ts|mts|js|mjs)$/.test(p)) out.push(p);
  return out;
}

/** Drops comments (line and block) so a commented-out assertion does not count; strings are kept. */
function withoutComments(src) {
  return src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

const CALL = /\b(?:assert(?:\.\w+)*|expect)\s*\(/g;
const counts = new Map();
let total = 0;
for (const file of collect(root, [])) {
  const n = (withoutComments(readFileSync(file, 'utf8')).match(CALL) ?? []).length;
  if (n === 0) continue;
  counts.set(relative(root, file), n);
  total += n;
}

if (perFile) for (const [f, n] of counts) console.log(`${String(n).padStart(5)}  ${f}`);
else {
  const byFolder = new Map();
  for (const [f, n] of counts) {
    const top = f.includes('/') ? f.slice(0, f.indexOf('/')) : '.';
    byFolder.set(top, (byFolder.get(top) ?? 0) + n);
  }
  for (const [d, n] of byFolder) console.log(`${String(n).padStart(5)}  ${d}/`);
}
console.log(`${total} assertions in ${counts.size} files under ${relative(process.cwd(), root) || '.'}`);
