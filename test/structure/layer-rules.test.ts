// tier: unit
// Two rules of docs/architecture.md that imports do not show: every SQLite/PostgreSQL difference lives in
// src/infra/db behind a named function ("Where dialects differ"), and only src/infra/jobs queries the jobs
// table, one module per operation ("Storage rules"). Read from the source text, comments left out.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const src = new URL('../../src', import.meta.url).pathname;
const files: string[] = [];
(function walk(dir: string) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (p.endsWith('.ts')) files.push(p);
  }
})(src);

/** Lines of code (not comments) matching `re`, as "path:line: text", outside the folders allowed. */
function offenders(re: RegExp, allowed: string[]): string[] {
  const found: string[] = [];
  for (const f of files) {
    const path = relative(src, f);
    if (allowed.some((a) => path.startsWith(a))) continue;
    readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.replace(/^\s*(\/\/|\*|\/\*).*$/, '').replace(/\s\/\/\s.*$/, '');
        if (re.test(code)) found.push(`${path}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('layer rules in the source', () => {
  it('compares the dialect only in src/infra/db', () => {
    const dialectTest = /(?:[!=]==?\s*['"](?:postgres|sqlite)['"])|(?:['"](?:postgres|sqlite)['"]\s*[!=]==?)/;
    assert.deepEqual(offenders(dialectTest, ['infra/db/']), []);
  });

  it('queries the jobs table only in src/infra/jobs', () => {
    const jobsTable = /(?:selectFrom|updateTable|deleteFrom|insertInto|mergeInto|innerJoin|leftJoin)\(\s*['"]jobs['"]|\b(?:from|into|update|join)\s+jobs\b(?![.\w-])/i;
    assert.deepEqual(offenders(jobsTable, ['infra/jobs/', 'infra/db/migrations/', 'infra/db/schema.ts', 'infra/db/tables/']), []);
  });
});
