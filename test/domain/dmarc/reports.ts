// Report XML for tests and the benchmark: `records` records alternating an aligned source (DKIM and SPF pass)
// and a failing one, each with count 3; fields may be replaced to make a malformed report.
export interface ReportOptions {
  records?: number;
  orgName?: string;
  email?: string;
  reportId?: string;
  domain?: string;
  sourceIp?: string;
  count?: string;
  begin?: number;
  end?: number;
  /** Source IPs of aligned records (cycled). */
  alignedIps?: string[];
}

export function reportXmlOf(o: ReportOptions): string {
  const n = o.records ?? 1;
  const domain = o.domain ?? 'example.com';
  const begin = o.begin ?? 1732579200;
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const ok = i % 2 === 0;
    const ip = o.sourceIp ?? (ok ? (o.alignedIps?.[i % o.alignedIps.length] ?? `192.0.2.${i % 250}`) : `198.51.${(i >> 8) & 255}.${i & 255}`);
    rows.push(
      `<record><row><source_ip>${ip}</source_ip><count>${o.count ?? '3'}</count><policy_evaluated><disposition>none</disposition>` +
        `<dkim>${ok ? 'pass' : 'fail'}</dkim><spf>${ok ? 'pass' : 'fail'}</spf></policy_evaluated></row>` +
        `<identifiers><header_from>${domain}</header_from></identifiers><auth_results><dkim><domain>${domain}</domain>` +
        `<selector>s1</selector><result>${ok ? 'pass' : 'fail'}</result></dkim><spf><domain>${domain}</domain><result>${ok ? 'pass' : 'softfail'}</result></spf></auth_results></record>`,
    );
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<feedback>\n<report_metadata><org_name>${o.orgName ?? 'Reporter Inc.'}</org_name>` +
    `<email>${o.email ?? 'dmarc@reporter.example'}</email><report_id>${o.reportId ?? 'r-1'}</report_id>` +
    `<date_range><begin>${begin}</begin><end>${o.end ?? begin + 86399}</end></date_range></report_metadata>\n` +
    `<policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><pct>100</pct></policy_published>\n` +
    rows.join('\n') +
    '\n</feedback>\n'
  );
}
