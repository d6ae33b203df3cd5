// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scoreCorpus } from '../../fixtures/bounce-corpus.js';

// The classifier measured over the labelled corpus (test/fixtures/bounce-corpus.ts); `npm run
// bench:classify` prints the same figures with every miss.
describe('bounce classification over the labelled corpus', () => {
  it('has at least 60 samples from at least 10 kinds of sender, and classifies 95% or more as labelled', async () => {
    const s = await scoreCorpus();
    assert.ok(s.total >= 60, `corpus has ${s.total} samples`);
    assert.ok(s.sources >= 10, `corpus covers ${s.sources} senders`);
    const misses = s.misses.map((m) => `${m.entry.source}: expected ${m.entry.expected}, got ${m.got}`).join('\n');
    assert.ok(s.accuracy >= 0.95, `accuracy ${(s.accuracy * 100).toFixed(1)}% (${s.correct}/${s.total})\n${misses}`);
  });
});
