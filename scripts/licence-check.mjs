#!/usr/bin/env node
// Fails when a package of the production tree (dependencies and their dependencies, not devDependencies)
// carries a copyleft licence: mailroom is MIT and is shipped with its production node_modules (Dockerfile,
// `npm ci --omit=dev`), so a GPL/AGPL/LGPL/SSPL/EUPL/MPL/... package there would bind what is distributed.
// A package without a readable licence fails too: it must be looked at, not assumed.
//
//   node scripts/licence-check.mjs          check the installed tree (run after npm ci)
//
// SPDX expressions are read the usual way: "A OR B" passes when one side passes, "A AND B" only when both do.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** Licence identifiers (SPDX, and the spellings older package.json files use) that are copyleft. */
const COPYLEFT = /^(A?GPL|LGPL|SSPL|EUPL|MPL|EPL|CDDL|CPAL|OSL|RPL|CC-BY-SA|CC-BY-NC|Sleepycat|QPL|Watcom|NPL|APSL|CECILL|Parity|Commons-Clause|BUSL|Elastic)/i;

/** The production tree's package directories, from npm itself (so hoisting and dedupe are npm's). */
function productionPackages() {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return [...new Set(out.split('\n').filter(Boolean))].filter((p) => p !== root.replace(/\/$/, ''));
}

/** The declared licence of a package.json, as an SPDX expression string, or null. */
function declared(pkg) {
  const l = pkg.license ?? pkg.licenses;
  if (typeof l === 'string') return l;
  if (Array.isArray(l)) return l.map((x) => (typeof x === 'string' ? x : x.type)).filter(Boolean).join(' OR ') || null;
  if (l && typeof l === 'object' && typeof l.type === 'string') return l.type;
  return null;
}

/** Whether an SPDX expression allows use without copyleft: each term is tokenised, no regular expression
 * over the whole expression. Parentheses group; AND binds tighter than OR. */
export function permissive(expression) {
  const tokens = expression.replace(/[()]/g, (p) => ` ${p} `).split(/\s+/).filter(Boolean);
  let i = 0;
  const orExpr = () => {
    let ok = andExpr();
    while (tokens[i]?.toUpperCase() === 'OR') {
      i++;
      ok = andExpr() || ok;
    }
    return ok;
  };
  const andExpr = () => {
    let ok = term();
    while (tokens[i]?.toUpperCase() === 'AND') {
      i++;
      ok = term() && ok;
    }
    return ok;
  };
  const term = () => {
    const t = tokens[i++];
    if (t === '(') {
      const ok = orExpr();
      i++; // ')'
      return ok;
    }
    if (t === undefined) return false;
    // "X WITH exception": the exception (e.g. Classpath) does not make a copyleft licence permissive here.
    if (tokens[i]?.toUpperCase() === 'WITH') i += 2;
    return !COPYLEFT.test(t.replace(/^SEE LICEN[CS]E IN .*/i, ''));
  };
  return orExpr();
}

const failures = [];
let checked = 0;
for (const dir of productionPackages()) {
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    continue; // a folder npm lists without a package.json (never seen; nothing to judge)
  }
  checked++;
  const licence = declared(pkg);
  const where = `${pkg.name}@${pkg.version} (${relative(root, dir)})`;
  if (!licence || /^UNLICENSED$/i.test(licence) || /^SEE LICEN[CS]E IN/i.test(licence)) failures.push(`${where}: no SPDX licence declared (${licence ?? 'none'})`);
  else if (!permissive(licence)) failures.push(`${where}: ${licence} is copyleft`);
}

if (failures.length) {
  console.error(`licence check: ${failures.length} of ${checked} production packages fail:`);
  for (const f of failures) console.error(`  ${f}`);
  process.exit(1);
}
console.log(`licence check: ${checked} production packages, none copyleft`);
