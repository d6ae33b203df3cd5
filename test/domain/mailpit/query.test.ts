// tier: unit
// Mailpit's search syntax as parsed for its API (src/domain/mailpit/query.ts): words split as its ArgsParser
// splits them, negation, the prefixes and flags, dates in the request's zone, and the limits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanValue, MAX_TERMS, parseQuery, QueryError, splitWords } from '../../../src/domain/mailpit/query.js';
import { snippet } from '../../../src/domain/mailpit/snippet.js';
import { cleanTag, cleanTags } from '../../../src/domain/mailpit/tags.js';

describe("Mailpit's search syntax", () => {
  it('splits on spaces outside quotes and drops the quotes', () => {
    assert.deepEqual(splitWords('from:a "hello world"  subject:"x y"'), ['from:a', 'hello world', 'subject:x y']);
    assert.deepEqual(splitWords('   '), []);
    assert.deepEqual(splitWords('"unclosed phrase here'), ['unclosed phrase here']);
  });

  it('cleans values as Mailpit does: separators to one space, lowercase', () => {
    assert.equal(cleanValue(' <Jane@Example.ORG>, (x);\t\r\n'), 'jane@example.org x');
  });

  it('reads fields, flags, negation with - or !, and free text', () => {
    assert.deepEqual(parseQuery('to:jane@x.org -from:spam !tag:old is:unread has:attachment hello'), [
      { kind: 'field', field: 'to', value: 'jane@x.org', exclude: false },
      { kind: 'field', field: 'from', value: 'spam', exclude: true },
      { kind: 'field', field: 'tag', value: 'old', exclude: true },
      { kind: 'flag', flag: 'unread', exclude: false },
      { kind: 'flag', flag: 'attachment', exclude: false },
      { kind: 'field', field: 'text', value: 'hello', exclude: false },
    ]);
    assert.deepEqual(parseQuery('CC:Boss Subject:"Your Order" message-id:<abc@x> -is:read reply-to:help addressed:me bcc:b'), [
      { kind: 'field', field: 'cc', value: 'boss', exclude: false },
      { kind: 'field', field: 'subject', value: 'Your Order', exclude: false },
      { kind: 'field', field: 'message-id', value: 'abc@x', exclude: false },
      { kind: 'flag', flag: 'read', exclude: true },
      { kind: 'field', field: 'reply-to', value: 'help', exclude: false },
      { kind: 'field', field: 'addressed', value: 'me', exclude: false },
      { kind: 'field', field: 'bcc', value: 'b', exclude: false },
    ]);
    // A lone "-" is a word, not a negation; an empty prefix is dropped.
    assert.deepEqual(parseQuery('- to:'), [{ kind: 'field', field: 'text', value: '-', exclude: false }]);
  });

  it('reads dates in the given zone, and ignores what it cannot read', () => {
    assert.deepEqual(parseQuery('after:2026-11-26'), [{ kind: 'date', bound: 'after', at: Date.UTC(2026, 10, 26), exclude: false }]);
    assert.deepEqual(parseQuery('before:2026/11/26', 'Pacific/Auckland'), [{ kind: 'date', bound: 'before', at: Date.UTC(2026, 10, 25, 11), exclude: false }]);
    assert.deepEqual(parseQuery('after:2026-07-01T10:00', 'Europe/Berlin'), [{ kind: 'date', bound: 'after', at: Date.UTC(2026, 6, 1, 8), exclude: false }]);
    assert.deepEqual(parseQuery('-after:2026-01-01T00:00:00+02:00'), [{ kind: 'date', bound: 'after', at: Date.UTC(2025, 11, 31, 22), exclude: true }]);
    assert.deepEqual(parseQuery('after:yesterday-ish before:2026-13-01'), []);
  });

  it('refuses more than the term limit and overlong terms', () => {
    assert.throws(() => parseQuery(Array.from({ length: MAX_TERMS + 1 }, (_, i) => `w${i}`).join(' ')), QueryError);
    assert.throws(() => parseQuery('x'.repeat(1001)), QueryError);
    assert.equal(parseQuery(Array.from({ length: MAX_TERMS }, (_, i) => `w${i}`).join(' ')).length, MAX_TERMS);
  });

  it('makes snippets and tags as Mailpit does', () => {
    assert.equal(snippet('text', '<html><head><title>T</title><style>p{}</style></head><body><p>Hi&nbsp;<b>you</b></p></body></html>'), 'Hi you');
    assert.equal(snippet('  many\n\n spaces  ', null), 'many spaces');
    assert.equal(snippet('x'.repeat(300), null), `${'x'.repeat(200)}...`);
    assert.equal(cleanTag('  a/b   c!  '), 'a b c');
    assert.deepEqual(cleanTags(['One', 'one', '', '***', 'Two', 3]), ['One', 'Two']);
  });
});
