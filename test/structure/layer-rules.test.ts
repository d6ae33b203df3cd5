// tier: unit
// Two rules of docs/architecture.md that imports do not show: every SQLite/PostgreSQL difference lives in
// src/infra/db behind a named function ("Where dialects differ"), and only src/infra/jobs queries the jobs
// table, one module per operation ("Storage rules"). Read from the source text, comments left out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { offenders as offendersIn, sourceFiles } from './source-lines.js';

const files = sourceFiles();
/** Lines of code (not comments) matching `re`, as "path:line: text", outside the folders allowed. */
const offenders = (re: RegExp, allowed: string[]) => offendersIn(files, re, allowed);

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
