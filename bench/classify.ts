// Bounce classification accuracy over the labelled corpus (test/fixtures/bounce-corpus.ts): how often the
// delivery path's reply classifier and the report parser give the bounce type a person labelled.
//   npm run bench:classify
import { bounceCorpus, scoreCorpus } from '../test/fixtures/bounce-corpus.js';

const s = await scoreCorpus();
const bySource = new Map<string, { n: number; ok: number }>();
for (const e of bounceCorpus()) {
  const k = e.source.split(' ')[0]!;
  const v = bySource.get(k) ?? { n: 0, ok: 0 };
  v.n++;
  if (!s.misses.some((m) => m.entry.input === e.input)) v.ok++;
  bySource.set(k, v);
}
console.log(`bounce classification: ${s.correct}/${s.total} correct, accuracy ${(s.accuracy * 100).toFixed(1)}% (held at >= 95% by test/domain/bounces/corpus.test.ts)`);
console.log('\nby sender:');
for (const [k, v] of [...bySource].sort((a, b) => b[1].n - a[1].n)) console.log(`  ${k.padEnd(22)} ${v.ok}/${v.n}`);
if (s.misses.length) {
  console.log('\nmisses:');
  for (const m of s.misses) console.log(`  ${m.entry.source}: expected ${m.entry.expected}, got ${m.got}: ${m.entry.input.split('\r\n')[0]!.slice(0, 110)}`);
}
