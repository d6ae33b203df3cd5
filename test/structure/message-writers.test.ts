// tier: unit
// `messages` and the rows written with it (recipients, metadata, attachments) have one owner
// (docs/architecture.md, "Storage rules"): every statement that inserts, updates or deletes them is a function
// of src/domain/message-store, which the areas call with their transaction. Besides it, only infra/db's
// partition code (the cascading delete, the day partitions) and the migrations write them. Read from the
// source text, comments left out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeOf, offenders as offendersIn, sourceFiles } from './source-lines.js';

const files = sourceFiles();

const OWNER = 'domain/message-store/';
const ALLOWED = [OWNER, 'infra/db/partitions-cascade.ts', 'infra/db/partitions.ts', 'infra/db/migrations/'];

const TABLES = '(?:messages|message_recipients|message_metadata|message_attachments)';
const WRITES: Array<{ what: string; re: RegExp }> = [
  { what: 'a query-builder write', re: new RegExp(`(?:insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\\(\\s*['"\`]${TABLES}\\b`) },
  { what: 'an SQL write', re: new RegExp(`\\b(?:update|insert\\s+(?:or\\s+\\w+\\s+)?into|delete\\s+from|replace\\s+into|truncate(?:\\s+table)?)\\s+"?${TABLES}\\b(?![.\\w-])`, 'i') },
  { what: 'a raw insert', re: new RegExp(`insertRows(?:With)?\\([^)]*['"]${TABLES}['"]`) },
  // The cascading delete is infra/db's; the domain reaches it through the owner (message-store/purge.ts).
  { what: 'the cascading delete', re: /\bdeleteMessagesCascading\b|partitions-cascade\.js/ },
];

const offenders = (re: RegExp) => offendersIn(files, re, ALLOWED);

describe('messages and its rows have one writer', () => {
  it('the rules catch the writes they are meant to, and let reads through', () => {
    const caught = (line: string) => WRITES.some((w) => w.re.test(codeOf(line)));
    assert.ok(caught(`await trx.updateTable('messages').set({ size: f.size }).where('id', '=', f.id).execute();`));
    assert.ok(caught(`    .deleteFrom('message_attachments')`));
    assert.ok(caught(`let q = db.insertInto("message_recipients").values(rows);`));
    assert.ok(caught('await sql`update messages set mime = case id ${cases} end`.execute(trx);'));
    assert.ok(caught('  delete from "message_metadata" where message_id = ${id}'));
    assert.ok(caught(`await ctx.database.sql.insertRows(trx, 'messages', MESSAGE_COLUMNS, rows);`));
    assert.ok(caught(`import { deleteMessagesCascading } from '../../infra/db/partitions-cascade.js';`));
    assert.ok(!caught(`const rows = await trx.selectFrom('messages').select('id').where('id', 'in', ids).execute();`));
    assert.ok(!caught(`await trx.updateTable('message_streams').set({ archived_at: now }).execute();`));
    assert.ok(!caught('sql`select id from message_recipients where message_id = ${id} for update`'));
    assert.ok(!caught(`  // the delivery job will update messages when it settles them`));
  });

  for (const { what, re } of WRITES) {
    it(`no file outside ${ALLOWED.join(', ')} holds ${what} of these tables`, () => {
      assert.deepEqual(offenders(re), []);
    });
  }
});
