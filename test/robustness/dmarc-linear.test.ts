// tier: unit
// The DMARC report reader (domain/dmarc/xml.ts, report.ts, dns-record.ts) reads a stranger's file: a megabyte
// of each worst case must cost time linear in it (CPU time, bound as test/robustness/linear-inputs.test.ts,
// in the perf tier only).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { reportXml } from '../../src/domain/dmarc/archive.js';
import { dmarcTags, ruaAddresses } from '../../src/domain/dmarc/dns-record.js';
import { parseReport } from '../../src/domain/dmarc/report.js';
import { readXml } from '../../src/domain/dmarc/xml.js';
import { reportXmlOf } from '../domain/dmarc/reports.js';
import { assertWithin, LEFT_TO_PERF, TIMED, TIMING_ONLY } from '../helpers/timing.js';

const MB = 1024 * 1024;
const BOUND_MS = 2000;
const mb = (unit: string, tail = '') => unit.repeat(Math.ceil(MB / unit.length)) + tail;

function linear(name: string, run: () => unknown): void {
  const started = process.cpuUsage();
  try {
    run();
  } catch {
    // Refusing the input is as good as reading it; only the time counts here.
  }
  const used = process.cpuUsage(started);
  const ms = (used.user + used.system) / 1000;
  assertWithin(ms, BOUND_MS, `${name}: CPU for a megabyte`);
}

const big = { maxDepth: 16, maxElements: 5_000_000, maxText: 4 * MB };

describe('a megabyte of the worst case through the DMARC report reader', TIMING_ONLY, () => {
  it('XML: references, tags, quotes, comments, nesting' + TIMED, LEFT_TO_PERF, () => {
    linear('bare ampersands', () => readXml(`<a>${mb('&')}</a>`, undefined, big));
    linear('ampersands then a late semicolon', () => readXml(`<a>${mb('&aaaaaaaaaa')};</a>`, undefined, big));
    linear('character reference starts', () => readXml(`<a>${mb('&#')}</a>`, undefined, big));
    linear('unclosed start tags', () => readXml(mb('<a')));
    linear('a long name', () => readXml(`<${mb('a')}>`));
    linear('quotes in a tag', () => readXml(`<a ${mb('"\'')}`));
    linear('unclosed comments', () => readXml(`<a>${mb('<!--')}`));
    linear('unclosed instructions', () => readXml(mb('<?')));
    linear('end tags', () => readXml(`<a>${mb('</')}`));
    linear('nesting', () => readXml(mb('<a>')));
    linear('many empty elements', () => readXml(`<a>${mb('<b/>')}</a>`));
    linear('whitespace', () => readXml(`<a>${mb(' \n')}x</a>`));
    linear('CDATA', () => readXml(`<a>${mb('<![CDATA[')}`));
  });

  it('reports: many records, a gzip of ampersands, DNS tags' + TIMED, LEFT_TO_PERF, () => {
    const xml = reportXmlOf({ records: 2500 });
    assert.ok(xml.length > MB);
    linear('a megabyte of records', () => parseReport(xml));
    linear('gzip of ampersands', () => parseReport(reportXml(gzipSync(`<feedback>${mb('&')}</feedback>`))));
    linear('DMARC tags', () => dmarcTags(mb('a=;')));
    linear('rua', () => ruaAddresses(mb('mailto:!,')));
  });
});
