// DMARC aggregate reports end to end (issue 26): a domain shows the _dmarc record to publish and what the real
// loopback DNS server answers for it; reports mailed over real SMTP to the inbound listener are stored once
// and shown by the API (list and summary), kept apart when no domain of that account may take them, refused
// with a reason when hostile; other accounts and server tokens see nothing; retention deletes them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { OPERATOR_COMMANDS } from '../../../src/cli-operator.js';
import { recheckDns } from '../../../src/domain/domains/recheck.js';
import { purgeExpired } from '../../../src/domain/retention/purge.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { makeZip } from '../../helpers/zip.js';
import { deliverReport } from '../inbound/helpers.js';
import { fixture, reportMail, xmlBodyMail } from './helpers.js';
import { reportXmlOf } from './reports.js';

const BASE = 'dmarc@inbound.bounces.localhost';

describe('DMARC aggregate reports', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let id = 0;
  let rua = '';
  const A = () => ({ accountToken: s.accountToken });
  const reports = async (domainId = id) => (await s.request('GET', `/domains/${domainId}/dmarc/reports?count=50&offset=0`, A())).body;

  before(async () => {
    dns = await startDnsServer();
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DMARC_OWN_SOURCES: '192.0.2.0/28' } });
    const d = (await s.request('POST', '/domains', { ...A(), body: { Name: 'example.com' } })).body;
    id = d.ID;
    dns.set(d.DKIMPendingHost, [{ type: 'TXT', data: d.DKIMPendingTextValue }]);
    assert.equal((await s.request('PUT', `/domains/${id}/verifyDkim`, A())).body.DKIMVerified, true);
  });
  after(async () => {
    await s.close();
    await dns.close();
  });

  it('shows the _dmarc record with the domain report address and the external destination record, and reads what is published', async () => {
    const d = (await s.request('GET', `/domains/${id}`, A())).body;
    assert.equal(d.DMARCHost, '_dmarc.example.com');
    const m = /^v=DMARC1; p=none; rua=mailto:(dmarc\+\d+\.[0-9a-z_-]{12}@inbound\.bounces\.localhost)$/.exec(d.DMARCTextValue);
    assert.ok(m, d.DMARCTextValue);
    rua = m[1];
    // The report domain is not under example.com: RFC 7489 7.1 asks for its authorization record.
    assert.equal(d.DMARCReportAuthorizationHost, 'example.com._report._dmarc.inbound.bounces.localhost');
    assert.equal(d.DMARCReportAuthorizationTextValue, 'v=DMARC1');
    assert.equal(d.DMARCVerified, false);
    assert.equal(d.DMARCPolicy, '');

    const verify = async () => (await s.request('PUT', `/domains/${id}/verifyDmarc`, A())).body;
    assert.equal((await verify()).DMARCVerified, false);
    dns.set('_dmarc.example.com', [{ type: 'TXT', data: `v=DMARC1; p=quarantine; rua=mailto:someone@elsewhere.example,mailto:${rua}!10m` }]);
    const v = await verify();
    assert.equal(v.DMARCVerified, true);
    assert.equal(v.DMARCPolicy, 'quarantine');
    dns.set('_dmarc.example.com', [{ type: 'TXT', data: 'v=DMARC1; p=reject; rua=mailto:reports@elsewhere.example' }]);
    const other = await verify();
    assert.equal(other.DMARCVerified, false, 'a record without our address');
    assert.equal(other.DMARCPolicy, 'reject', 'still says what policy it found');
    // Two DMARC records count as none (RFC 7489 6.6.3).
    dns.set('_dmarc.example.com', [{ type: 'TXT', data: d.DMARCTextValue }, { type: 'TXT', data: 'v=DMARC1; p=reject' }]);
    assert.equal((await verify()).DMARCPolicy, '');
    dns.set('_dmarc.example.com', [{ type: 'TXT', data: d.DMARCTextValue }]);
    assert.equal((await verify()).DMARCVerified, true);
    // The periodic re-check (hourly once verified) sees a changed policy without anyone pressing verify.
    dns.set('_dmarc.example.com', [{ type: 'TXT', data: d.DMARCTextValue.replace('p=none', 'p=reject') }]);
    await recheckDns(s.ctx, s.clock.now());
    assert.equal((await s.request('GET', `/domains/${id}`, A())).body.DMARCPolicy, 'none', 'not yet due');
    s.clock.advance(61 * 60_000);
    await recheckDns(s.ctx, s.clock.now());
    const after = (await s.request('GET', `/domains/${id}`, A())).body;
    assert.deepEqual([after.DMARCVerified, after.DMARCPolicy], [true, 'reject']);
  });

  it('stores a report mailed to the domain address once, and shows it with its records', async () => {
    const mail = reportMail(fixture('google.com!'), { to: rua });
    const r = await deliverReport(s, rua, mail, 'noreply-dmarc-support@google.com');
    assert.ok(r.ok, r.response);
    assert.match(r.response, /^250 2\.6\.0 Report received/);
    assert.ok((await deliverReport(s, rua, mail)).ok, 'a retry is answered 250 too');
    const list = await reports();
    assert.equal(list.TotalCount, 1);
    const rep = list.Reports[0];
    assert.equal(rep.Status, 'Stored');
    assert.deepEqual(rep.Reporter, { OrgName: 'google.com', Email: 'noreply-dmarc-support@google.com', ExtraContactInfo: 'https://support.google.com/a/answer/2466580' });
    assert.equal(rep.ReportID, '11029876354402817465');
    assert.deepEqual(rep.Period, { Begin: '2024-11-26T00:00:00.000+00:00', End: '2024-11-26T23:59:59.000+00:00' });
    assert.equal(rep.PolicyPublished[0].P, 'none');
    assert.equal(rep.RecordCount, 2);
    assert.equal(rep.MessageCount, 415);
    const [own, foreign] = rep.Records;
    assert.deepEqual([own.SourceIP, own.Count, own.Aligned, own.OwnSource], ['192.0.2.10', 412, true, true]);
    assert.deepEqual(own.DKIMResults, [{ Domain: 'example.com', Selector: 'mr2024', Result: 'pass' }]);
    assert.deepEqual([foreign.SourceIP, foreign.Aligned, foreign.OwnSource, foreign.SPFResults[0].Result], ['2001:db8::25', false, false, 'softfail']);
  });

  it('takes gzip at the bare report address for the one DKIM-verified domain of that name, and XML as the body', async () => {
    assert.ok((await deliverReport(s, BASE, reportMail(fixture('enterprise.protection.outlook.com!')))).ok);
    assert.ok((await deliverReport(s, BASE, reportMail(fixture('yahoo.com!')))).ok);
    assert.ok((await deliverReport(s, rua, xmlBodyMail(reportXmlOf({ orgName: 'Small ISP', reportId: 'body-1' }), rua))).ok);
    const list = await reports();
    assert.equal(list.TotalCount, 4);
    assert.deepEqual(list.Reports.map((r: any) => r.Reporter.OrgName).sort(), ['Enterprise Outlook', 'Small ISP', 'Yahoo', 'google.com']);
  });

  it('sums aligned and failing volume by UTC day and source, with own sources marked', async () => {
    const sum = (await s.request('GET', `/domains/${id}/dmarc?fromdate=2024-11-20&todate=2024-11-30`, A())).body;
    // google 412+3, microsoft 57+1, yahoo 88, the body report 3 (one aligned record).
    assert.equal(sum.Total, 412 + 3 + 57 + 1 + 88 + 3);
    assert.equal(sum.Aligned, 412 + 57 + 88 + 3);
    assert.equal(sum.Failing, 4);
    assert.equal(sum.Reports, 4);
    assert.deepEqual(sum.Days, [{ Date: '2024-11-26', Total: 564, Aligned: 560, Failing: 4 }]);
    assert.deepEqual(sum.Sources[0], { SourceIP: '192.0.2.10', OwnSource: true, Total: 469, Aligned: 469, Failing: 0 });
    assert.ok(sum.Sources.some((x: any) => x.SourceIP === '203.0.113.77' && !x.OwnSource && x.Failing === 1));
    const empty = (await s.request('GET', `/domains/${id}/dmarc?fromdate=2024-12-01&todate=2024-12-02`, A())).body;
    assert.equal(empty.Total, 0);
    for (const q of ['fromdate=2024-13-01', 'fromdate=yesterday', 'fromdate=2024-11-30&todate=2024-11-01', 'fromdate=2020-01-01&todate=2024-01-01']) {
      const r = await s.request('GET', `/domains/${id}/dmarc?${q}`, A());
      assert.equal(r.status, 422, q);
      assert.equal(r.body.ErrorCode, 1500, q);
    }
  });

  it('keeps apart what no domain of the account may take, and never attaches it to another account', async () => {
    // A second account holding a domain of the same name: the bare address can no longer tell them apart.
    const acc = await s.ctx.db.insertInto('accounts').values({ name: 'other', created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
    const dup = await s.ctx.db
      .insertInto('domains')
      .values({ account_id: acc.id, name: 'example.com', created_at: Date.now(), dkim_verified: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const before = (await reports()).TotalCount;
    assert.ok((await deliverReport(s, BASE, xmlBodyMail(reportXmlOf({ reportId: 'ambiguous' })))).ok);
    assert.ok((await deliverReport(s, BASE, xmlBodyMail(reportXmlOf({ reportId: 'unknown', domain: 'nobody.example' })))).ok);
    // At example.com's own address, a report about another domain is not example.com's.
    assert.ok((await deliverReport(s, rua, xmlBodyMail(reportXmlOf({ reportId: 'foreign', domain: 'victim.example' }), rua))).ok);
    assert.equal((await reports()).TotalCount, before);
    assert.equal((await reports(dup.id)).ErrorCode, 510, 'the other account domain is not this token');
    const apart = await s.ctx.db.selectFrom('dmarc_reports').select(['report_id', 'policy_domain', 'account_id', 'domain_id']).where('domain_id', 'is', null).orderBy('id').execute();
    assert.deepEqual(apart.map((r) => [r.report_id, r.policy_domain, r.account_id]), [['ambiguous', 'example.com', null], ['unknown', 'nobody.example', null], ['foreign', 'victim.example', null]]);
    // The operator sees them (`mailroom dmarc`), reporter values without control characters.
    const listed = await OPERATOR_COMMANDS.dmarc(s.ctx, [], {});
    assert.match(listed, /^3 DMARC reports kept apart/);
    assert.match(listed, /victim\.example {2}Reporter Inc\. <dmarc@reporter\.example> report foreign, 3 messages/);
    const dupRecords = await s.ctx.db.selectFrom('dmarc_records').select('id').where('domain_id', '=', dup.id).execute();
    assert.equal(dupRecords.length, 0);
    // A forged sub-address is refused at RCPT.
    const forged = rua.replace(/\.([0-9a-z_-]{12})@/, '.aaaaaaaaaaaa@');
    const r = await deliverReport(s, forged, xmlBodyMail(reportXmlOf({})));
    assert.equal(r.code, 550, r.response);
    await s.ctx.db.deleteFrom('domains').where('id', '=', dup.id).execute();
  });

  it('stores hostile and malformed files as refused with the reason, answered 250', async () => {
    const bomb = { name: 'google.com!example.com!1!2.zip', bytes: makeZip([{ name: 'r.xml', data: Buffer.alloc(40 * 1024 * 1024, 0x20), claimSize: 10 }]) };
    assert.ok((await deliverReport(s, rua, reportMail(bomb, { to: rua }))).ok);
    const laughs = Buffer.from('<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY a "a">]><feedback>&a;</feedback>');
    assert.ok((await deliverReport(s, rua, reportMail({ name: 'x.xml.gz', bytes: gzipSync(laughs) }, { to: rua }))).ok);
    const plain = ['From: a@reporter.example', `To: ${rua}`, 'Subject: hello', '', 'No report here, only words.', ''].join('\r\n');
    assert.ok((await deliverReport(s, rua, plain)).ok);
    const refused = (await reports()).Reports.filter((r: any) => r.Status === 'Refused');
    assert.deepEqual(refused.map((r: any) => r.FileName).sort(), ['', 'google.com!example.com!1!2.zip', 'x.xml.gz']);
    assert.match(refused.find((r: any) => r.FileName === '').Reason, /holds no report file/);
    assert.match(refused.find((r: any) => r.FileName === 'x.xml.gz').Reason, /DOCTYPE/);
    assert.match(refused.find((r: any) => r.FileName.endsWith('.zip')).Reason, /expands beyond/);
  });

  it('answers only the account token', async () => {
    const r = await s.request('GET', `/domains/${id}/dmarc/reports?count=10&offset=0`);
    assert.equal(r.status, 401);
    assert.equal((await s.request('GET', `/domains/${id}/dmarc`)).status, 401);
    assert.equal((await s.request('GET', `/domains/${id}/dmarc/reports?count=101&offset=0`, A())).status, 422);
  });

  it('lists at most 1000 records of a report, with RecordCount saying how many', async () => {
    assert.ok((await deliverReport(s, rua, xmlBodyMail(reportXmlOf({ records: 1001, reportId: 'big' }), rua))).ok);
    const big = (await reports()).Reports.find((r: any) => r.ReportID === 'big');
    assert.equal(big.RecordCount, 1001);
    assert.equal(big.Records.length, 1000);
    assert.equal(big.MessageCount, 3003);
  });

  it('reads a report on a parser thread and stores its records in chunks', async () => {
    const tasks: string[] = [];
    const run = s.ctx.threads.run.bind(s.ctx.threads);
    s.ctx.threads.run = ((module: string, ...rest: unknown[]) => (tasks.push(module), (run as (...a: unknown[]) => Promise<unknown>)(module, ...rest))) as typeof run;
    try {
      const file = { name: 'google.com!example.com!1!2.xml.gz', bytes: gzipSync(reportXmlOf({ records: 20_000, reportId: 'threaded' })) };
      assert.ok((await deliverReport(s, rua, reportMail(file, { to: rua }))).ok);
    } finally {
      s.ctx.threads.run = run;
    }
    assert.equal(tasks.filter((t) => t.includes('dmarc/read-task')).length, 1, 'read on a parser thread');
    const stored = (await reports()).Reports.find((r: any) => r.ReportID === 'threaded');
    assert.equal(stored.RecordCount, 20_000);
    const rows = await s.ctx.db.selectFrom('dmarc_records').select((eb) => eb.fn.countAll<number>().as('n')).where('report_id', '=', stored.ID).executeTakeFirstOrThrow();
    assert.equal(Number(rows.n), 20_000);
  });

  it('deletes reports past MAILROOM_DMARC_RETENTION_DAYS', async () => {
    assert.ok((await reports()).TotalCount > 0);
    s.clock.advance(181 * 86_400_000);
    const counts = await purgeExpired(s.ctx, s.clock.now());
    assert.ok(counts.dmarcReports > 0);
    assert.equal((await reports()).TotalCount, 0);
    assert.equal((await s.ctx.db.selectFrom('dmarc_records').select('id').execute()).length, 0);
  });
});
