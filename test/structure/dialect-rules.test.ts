// tier: unit
// The domain never learns which database it talks to (docs/architecture.md, "Where dialects differ"): it asks
// the SqlDialect object built once with the database (ctx.database.sql, infra/db/sql-dialect.ts) for an
// expression, an insert, a lock. So no file under src/domain names the `Dialect` tag, imports dialectOf or
// reads a `.dialect`; infra/, the composition root and the migrations keep the tag. Read from the source
// text, comments left out.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { codeOf, offenders as offendersIn, SRC, sourceFiles } from './source-lines.js';

const files = sourceFiles(join(SRC, 'domain'));

const RULES: Array<{ what: string; re: RegExp }> = [
  // `\b` keeps SqlDialect, the object's type, allowed.
  { what: 'the Dialect tag type, or its module', re: /\bDialect\b|dialect-tag/ },
  { what: 'dialectOf', re: /\bdialectOf\b/ },
  { what: 'a .dialect read', re: /\.dialect\b|\{[^}]*\bdialect\b[^}]*\}\s*=/ },
];

const offenders = (re: RegExp) => offendersIn(files, re);

describe('the dialect tag stays out of src/domain', () => {
  it('the rules catch what they are meant to, and let the SqlDialect object through', () => {
    const caught = (line: string) => RULES.some((r) => r.re.test(codeOf(line)));
    assert.ok(caught(`import type { Db, Dialect } from '../infra/db/database.js';`));
    assert.ok(caught(`import type { Dialect } from '../../infra/db/dialect-tag.js';`));
    assert.ok(caught(`import { dialectOf } from '../../infra/db/util.js';`));
    assert.ok(caught(`  await lockRowsForUpdate(trx, ctx.database.dialect, 'servers', [id]);`));
    assert.ok(caught(`  const { dialect } = ctx.database;`));
    assert.ok(!caught(`import type { SqlDialect } from '../../infra/db/sql-dialect.js';`));
    assert.ok(!caught(`  await ctx.database.sql.lockRowsForUpdate(trx, 'servers', [id]);`));
    assert.ok(!caught(`  // the dialect's .dialect tag, in a comment`));
  });

  for (const { what, re } of RULES) {
    it(`no file under src/domain uses ${what}`, () => {
      assert.deepEqual(offenders(re), []);
    });
  }
});
