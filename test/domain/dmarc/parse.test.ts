// tier: unit
// DMARC aggregate reports (issue 26) as the large reporters send them, and hostile files refused with a reason.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ArchiveError, reportXml } from '../../../src/domain/dmarc/archive.js';
import { aligned, parseReport, ReportError } from '../../../src/domain/dmarc/report.js';
import { makeZip } from '../../helpers/zip.js';
import { reportXmlOf } from './reports.js';

const DIR = new URL('../../fixtures/dmarc/', import.meta.url).pathname;
const fixture = (name: string) => readFileSync(DIR + readdirSync(DIR).find((f) => f.startsWith(name) && !f.endsWith('.ts'))!);
const read = (bytes: Buffer) => parseReport(reportXml(bytes));

describe('DMARC report parsing', () => {
  it('reads Google (zip), Microsoft (gzip, two policy_published), Yahoo (gzip) and Mail.ru (zip, BOM, prefixed namespace)', () => {
    const google = read(fixture('google.com!'));
    assert.equal(google.orgName, 'google.com');
    assert.equal(google.reportId, '11029876354402817465');
    assert.equal(google.begin, 1732579200_000);
    assert.equal(google.policies[0].domain, 'example.com');
    assert.equal(google.policies[0].p, 'none');
    assert.equal(google.records.length, 2);
    assert.deepEqual(google.records[0].dkimAuth, [{ domain: 'example.com', selector: 'mr2024', result: 'pass' }]);
    assert.equal(google.records[1].sourceIp, '2001:db8::25');
    assert.equal(aligned(google.records[1]), false);

    const ms = read(fixture('enterprise.protection.outlook.com!'));
    assert.equal(ms.orgName, 'Enterprise Outlook');
    assert.deepEqual(ms.policies.map((p) => p.p), ['none', 'quarantine']);
    assert.equal(ms.records[0].envelopeFrom, 'bounces.mailroom.test');
    assert.equal(ms.records[0].envelopeTo, 'contoso.onmicrosoft.com');
    assert.deepEqual(ms.records[1].reasons, [{ type: 'local_policy', comment: 'arc=fail' }]);
    assert.equal(ms.records[1].disposition, 'quarantine');
    assert.equal(ms.records[1].dkimAuth[0].selector, '', 'a missing selector is empty');

    const yahoo = read(fixture('yahoo.com!'));
    assert.equal(yahoo.email, 'dmarchelp@yahooinc.com');
    assert.equal(yahoo.records[0].count, 88);
    assert.equal(yahoo.policies[0].sp, '', 'a missing sp is empty');

    const mailru = read(fixture('mail.ru!'));
    assert.equal(mailru.orgName, 'Mail.Ru');
    assert.equal(mailru.policies[0].p, 'reject');
    assert.deepEqual(mailru.records.map((r) => [r.sourceIp, r.count, aligned(r)]), [['198.51.100.9', 12, false], ['192.0.2.10', 30, true]]);
  });

  it('reads a few thousand records', () => {
    const xml = reportXmlOf({ records: 5000 });
    const r = read(gzipSync(xml));
    assert.equal(r.records.length, 5000);
    assert.equal(r.records.reduce((n, x) => n + x.count, 0), 5000 * 3);
    assert.equal(r.records.filter(aligned).length, 2500);
  });

  it('decodes the predefined entities and character references, and CDATA', () => {
    const xml = reportXmlOf({ orgName: 'A &amp; B &#x3C;x&#62; <![CDATA[<raw>]]>' });
    assert.equal(read(Buffer.from(xml)).orgName, 'A & B <x> <raw>');
  });

  const refused = (bytes: Buffer | string, reason: RegExp) => {
    assert.throws(() => read(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes)), (err: Error) => {
      assert.ok(err instanceof ReportError || err instanceof ArchiveError, String(err));
      assert.match(err.message, reason);
      return true;
    });
  };

  it('refuses DOCTYPE and entities, so that nothing can expand', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><feedback><report_metadata><org_name>&b;</org_name></report_metadata></feedback>`;
    refused(laughs, /DOCTYPE/);
    refused(reportXmlOf({ orgName: '&xxe;' }), /undeclared entity/);
    refused(reportXmlOf({ orgName: 'a & b' }), /bare '&'/);
  });

  it('refuses gzip and zip bombs by their decompressed size', () => {
    const zeros = Buffer.alloc(40 * 1024 * 1024, 0x20);
    refused(gzipSync(zeros), /expands beyond/);
    refused(makeZip([{ name: 'r.xml', data: zeros }]), /expands to|expands beyond/);
    // A directory that lies about the size is still held to the bound.
    refused(makeZip([{ name: 'r.xml', data: zeros, claimSize: 100 }]), /expands beyond/);
  });

  it('refuses malformed reports with a reason', () => {
    refused('not xml at all', /neither XML, gzip nor zip/);
    refused(Buffer.from([0x1f, 0x8b, 1, 2, 3]), /damaged/);
    refused(Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(40)]), /central directory/);
    refused('<feedback><report_metadata>', /not closed/);
    refused('<other/>', /not <feedback>/);
    refused(reportXmlOf({ reportId: '' }), /report_id/);
    refused(reportXmlOf({ sourceIp: '999.1.1.1' }), /source_ip/);
    refused(reportXmlOf({ count: '-1' }), /count/);
    refused('<feedback>' + '<a>'.repeat(100) + '</a>'.repeat(100) + '</feedback>', /nested deeper/);
    refused(reportXmlOf({}).replace('<policy_published>', '<x>').replace('</policy_published>', '</x>'), /policy_published is missing/);
    refused(makeZip([{ name: 'a.xml', data: gzipSync('<feedback/>') }]), /does not hold XML/);
  });
});
