// A DMARC aggregate report (RFC 7489 appendix C, the `feedback` schema) read from its XML into plain values.
// Required fields missing or malformed refuse the report with a reason; optional ones may be absent (many
// reporters leave out adkim/aspf/pct/fo, envelope_from or selector). Values are clipped to column sizes and
// a report has at most MAX_RECORDS records (the XML reader bounds nesting and element count).
import { isIP } from 'node:net';
import { children, child, readXml, textOf, XmlError, type XmlNode } from './xml.js';

export class ReportError extends Error {}

/** The most records one report may carry; the largest reporters' daily reports hold a few thousand. */
export const MAX_RECORDS = 200_000;
const MAX_AUTH_RESULTS = 32;
const MAX_POLICIES = 16;

export interface PolicyPublished {
  domain: string;
  adkim: string;
  aspf: string;
  p: string;
  sp: string;
  pct: string;
  fo: string;
}

export interface DkimAuth { domain: string; selector: string; result: string }
export interface SpfAuth { domain: string; scope: string; result: string }

export interface DmarcRecord {
  sourceIp: string;
  count: number;
  disposition: string;
  /** policy_evaluated: the DKIM and SPF results after alignment (RFC 7489 3.1). */
  dkim: string;
  spf: string;
  reasons: Array<{ type: string; comment: string }>;
  headerFrom: string;
  envelopeFrom: string;
  envelopeTo: string;
  dkimAuth: DkimAuth[];
  spfAuth: SpfAuth[];
}

export interface DmarcReport {
  orgName: string;
  email: string;
  extraContact: string;
  reportId: string;
  /** date_range, in ms since the epoch (the XML has seconds). */
  begin: number;
  end: number;
  errors: string[];
  policies: PolicyPublished[];
  records: DmarcRecord[];
}

const clip = (s: string, n = 255) => (s.length > n ? s.slice(0, n) : s);
const low = (s: string, n = 32) => clip(s.toLowerCase(), n);
const domainName = (s: string) => clip(s.toLowerCase().replace(/\.$/, ''), 253);

/** Whether a record's DMARC verdict is a pass: DKIM or SPF passed and aligned (RFC 7489 4.2). */
export const aligned = (r: { dkim: string; spf: string }): boolean => r.dkim === 'pass' || r.spf === 'pass';

function seconds(n: XmlNode | undefined, name: string): number {
  const t = textOf(n, name);
  if (!/^\d{1,12}$/.test(t)) throw new ReportError(`date_range ${name} is not a number of seconds: "${clip(t, 40)}"`);
  return Number(t) * 1000;
}

function policy(n: XmlNode): PolicyPublished {
  const domain = domainName(textOf(n, 'domain'));
  if (!domain) throw new ReportError('policy_published has no domain');
  return { domain, adkim: low(textOf(n, 'adkim')), aspf: low(textOf(n, 'aspf')), p: low(textOf(n, 'p')), sp: low(textOf(n, 'sp')), pct: clip(textOf(n, 'pct'), 8), fo: clip(textOf(n, 'fo'), 32) };
}

function record(n: XmlNode, index: number): DmarcRecord {
  const row = child(n, 'row');
  const ev = child(row, 'policy_evaluated');
  const ids = child(n, 'identifiers');
  const auth = child(n, 'auth_results');
  const sourceIp = textOf(row, 'source_ip');
  if (!isIP(sourceIp)) throw new ReportError(`record ${index + 1}: source_ip "${clip(sourceIp, 60)}" is not an IP address`);
  const countText = textOf(row, 'count');
  if (!/^\d{1,10}$/.test(countText)) throw new ReportError(`record ${index + 1}: count "${clip(countText, 20)}" is not a number`);
  const dkimAuth = children(auth, 'dkim');
  const spfAuth = children(auth, 'spf');
  if (dkimAuth.length + spfAuth.length > MAX_AUTH_RESULTS) throw new ReportError(`record ${index + 1}: more than ${MAX_AUTH_RESULTS} auth results`);
  return {
    sourceIp: sourceIp.toLowerCase(),
    count: Number(countText),
    disposition: low(textOf(ev, 'disposition')),
    dkim: low(textOf(ev, 'dkim')),
    spf: low(textOf(ev, 'spf')),
    reasons: children(ev, 'reason').slice(0, 8).map((r) => ({ type: low(textOf(r, 'type')), comment: clip(textOf(r, 'comment')) })),
    headerFrom: domainName(textOf(ids, 'header_from')),
    envelopeFrom: domainName(textOf(ids, 'envelope_from')),
    envelopeTo: domainName(textOf(ids, 'envelope_to')),
    dkimAuth: dkimAuth.map((d) => ({ domain: domainName(textOf(d, 'domain')), selector: clip(textOf(d, 'selector'), 64), result: low(textOf(d, 'result')) })),
    spfAuth: spfAuth.map((d) => ({ domain: domainName(textOf(d, 'domain')), scope: low(textOf(d, 'scope')), result: low(textOf(d, 'result')) })),
  };
}

/** Reads the report XML; a malformed or hostile one is refused with a ReportError saying why. */
export function parseReport(xml: string): DmarcReport {
  const records: DmarcRecord[] = [];
  let root: XmlNode;
  try {
    // Each <record> directly under the root becomes a value at once and its nodes are dropped.
    root = readXml(xml, (node, depth) => {
      if (depth !== 1 || node.name !== 'record') return false;
      if (records.length >= MAX_RECORDS) throw new ReportError(`more than ${MAX_RECORDS} records`);
      records.push(record(node, records.length));
      return true;
    });
  } catch (err) {
    if (err instanceof XmlError) throw new ReportError(`not well-formed XML: ${err.message}`);
    throw err;
  }
  if (root.name !== 'feedback') throw new ReportError(`the root element is <${clip(root.name, 40)}>, not <feedback>`);
  const meta = child(root, 'report_metadata');
  if (!meta) throw new ReportError('report_metadata is missing');
  const reportId = clip(textOf(meta, 'report_id'));
  if (!reportId) throw new ReportError('report_metadata has no report_id');
  const range = child(meta, 'date_range');
  const begin = seconds(range, 'begin');
  const end = seconds(range, 'end');
  if (end < begin) throw new ReportError('date_range ends before it begins');
  const policies = children(root, 'policy_published');
  if (policies.length === 0) throw new ReportError('policy_published is missing');
  if (policies.length > MAX_POLICIES) throw new ReportError(`more than ${MAX_POLICIES} policy_published elements`);
  return {
    orgName: clip(textOf(meta, 'org_name')),
    email: clip(textOf(meta, 'email')),
    extraContact: clip(textOf(meta, 'extra_contact_info'), 500),
    reportId,
    begin,
    end,
    errors: children(meta, 'error').slice(0, 16).map((e) => clip(e.text, 500)),
    policies: policies.map(policy),
    records,
  };
}
