// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkStreamId, deriveStreamId, withSuffix } from '../../../src/domain/streams/rules.js';

describe('stream ID rules', () => {
  it('derives IDs that pass the ID rules from any Name', () => {
    const cases: Array<[string, string]> = [
      ['My Newsletter!', 'my-newsletter'],
      ['Ünïcödé Näme', 'unicode-name'],
      ['2024 Promotions', 'promotions'],
      ['!!!', 'stream'],
      ['日本語', 'stream'],
      ['all', 'stream-all'],
      ['PM-alerts', 'stream-pm-alerts'],
      ['a'.repeat(40), 'a'.repeat(30)],
      ['Snake_case and-dash', 'snake_case-and-dash'],
    ];
    for (const [name, id] of cases) {
      assert.equal(deriveStreamId(name), id, name);
      assert.equal(checkStreamId(deriveStreamId(name)), id);
    }
    assert.equal(withSuffix('a'.repeat(30), 12), `${'a'.repeat(27)}-12`);
    assert.equal(checkStreamId(withSuffix('a'.repeat(30), 12)).length, 30);
  });
});
