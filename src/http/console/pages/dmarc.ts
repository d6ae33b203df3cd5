// A domain's DMARC page: aligned versus failing volume by UTC day (uPlot, assets/dmarc.js, from a
// JSON data block), the sources with mailroom's own marked, and the latest reports. Every reporter-given
// value (org name, e-mail, report id, reasons) goes through the escaping template.
import type { AppContext } from '../../../domain/app-context.js';
import { getDomain } from '../../../domain/domains/domains.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { dmarcFields } from '../../../domain/dmarc/dns-record.js';
import { dmarcSummary, listDmarcReports } from '../../../domain/dmarc/query.js';
import { DAY_MS } from '../../../infra/time.js';
import { html, trusted } from '../html.js';
import { ConsoleRefusal } from '../guard.js';
import { page, ISO_DATE } from '../layout.js';
import type { ConsoleRouter } from '../router.js';

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function registerDmarc(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/domains/:id/dmarc', async (c) => {
    const d = await getDomain(ctx, c.session.user.accountId, Number(c.params.id)).catch((err: unknown) => {
      if (err instanceof ApiError && err.errorCode === ErrorCode.DomainNotFound) throw new ConsoleRefusal(404, 'No such domain in this account.');
      throw err;
    });
    const q = c.query;
    const now = ctx.clock.now();
    const todate = DATE.test(q.todate ?? '') ? q.todate! : utcDay(now);
    const fromdate = DATE.test(q.fromdate ?? '') ? q.fromdate! : utcDay(Date.parse(`${todate}T00:00:00Z`) - 29 * DAY_MS);
    const [sum, latest] = await Promise.all([dmarcSummary(ctx, d.id, fromdate, todate), listDmarcReports(ctx, d.id, 20, 0, false)]);
    const fields = dmarcFields(ctx, d);
    // Every day of the range, so quiet days show as zero.
    const byDay = new Map(sum.Days.map((x) => [x.Date, x]));
    const days: string[] = [];
    for (let t = Date.parse(`${sum.FromDate}T00:00:00Z`); t <= Date.parse(`${sum.ToDate}T00:00:00Z`); t += DAY_MS) days.push(utcDay(t));
    const data = { days, aligned: days.map((x) => byDay.get(x)?.Aligned ?? 0), failing: days.map((x) => byDay.get(x)?.Failing ?? 0) };
    // A JSON data block is never executed; `<` is escaped so no value can close the element.
    const json = trusted(JSON.stringify(data).replace(/</g, '\\u003c'));
    const figure = (label: string, value: string | number) => html`<div class="figure"><span class="value">${value}</span><span class="label">${label}</span></div>`;
    const rate = sum.Total ? `${Math.round((sum.Aligned / sum.Total) * 1000) / 10}%` : '-';
    const body = html`<p><a href="/console/senders">Senders &amp; domains</a> · ${d.name}: DMARC record ${fields.DMARCVerified ? html`<span class="ok">names mailroom's report address</span>` : html`<span class="warn">does not name mailroom's report address</span>`}${fields.DMARCPolicy ? html` · policy <strong>${fields.DMARCPolicy}</strong>` : html` · no policy found`}</p>
<form method="get" class="filters" aria-label="Range">
  <div class="field"><label for="dm-from">From</label><input id="dm-from" ${ISO_DATE} name="fromdate" value="${sum.FromDate}"></div>
  <div class="field"><label for="dm-to">To</label><input id="dm-to" ${ISO_DATE} name="todate" value="${sum.ToDate}"></div>
  <div class="field"><button type="submit">Show</button></div></form>
<p class="muted">Days are UTC days, as the reports' periods.</p>
<div class="figures">${figure('Messages', sum.Total)}${figure('DMARC pass', sum.Aligned)}${figure('Failing', sum.Failing)}${figure('Pass rate', rate)}${figure('Reports', sum.Reports)}</div>
<script type="application/json" id="dmarc-data">${json}</script>
<figure><figcaption>Aligned (DMARC pass) and failing messages per day</figcaption><div class="chart" id="chart-dmarc" role="img" aria-label="Aligned and failing messages per day"></div></figure>
<h2>Sources</h2>
<table class="list labelled" id="dmarc-sources"><thead><tr><th scope="col">Source IP</th><th scope="col">Sender</th><th scope="col">Messages</th><th scope="col">Pass</th><th scope="col">Fail</th></tr></thead><tbody>
${sum.Sources.map((s) => html`<tr${s.OwnSource ? html` class="own"` : ''}><td><code>${s.SourceIP}</code></td><td data-label="Sender">${s.OwnSource ? html`<span class="ok">mailroom</span>` : html`<span class="muted">other</span>`}</td><td data-label="Messages">${s.Total}</td><td data-label="Pass">${s.Aligned}</td><td data-label="Fail">${s.Failing ? html`<span class="warn">${s.Failing}</span>` : '0'}</td></tr>`)}
</tbody></table>${sum.Sources.length === 0 ? html`<p class="empty">No reports in this range.</p>` : ''}
<h2>Latest reports</h2>
<table class="list labelled" id="dmarc-reports"><thead><tr><th scope="col">Reporter</th><th scope="col">Report ID</th><th scope="col">Period (UTC)</th><th scope="col">Policy</th><th scope="col">Messages</th><th scope="col">Status</th></tr></thead><tbody>
${(latest.Reports as Array<Record<string, any>>).map((x) => html`<tr><td>${String(x.Reporter.OrgName)}<br><span class="muted">${String(x.Reporter.Email)}</span></td><td data-label="Report ID"><code class="wrap">${String(x.ReportID)}</code></td><td data-label="Period">${x.Status === 'Stored' ? `${String(x.Period.Begin).slice(0, 16).replace('T', ' ')} – ${String(x.Period.End).slice(0, 16).replace('T', ' ')}` : ''}</td><td data-label="Policy">${(x.PolicyPublished as Array<{ P: string }>).map((p) => p.P).join(', ')}</td><td data-label="Messages">${String(x.MessageCount)}</td><td data-label="Status">${x.Status === 'Stored' ? 'stored' : html`<span class="warn">refused</span>: ${String(x.Reason)}${x.FileName ? html` (<code>${String(x.FileName)}</code>)` : ''}`}</td></tr>`)}
</tbody></table>${latest.TotalCount === 0 ? html`<p class="empty">No reports yet. Publish <code>${fields.DMARCTextValue}</code> at <code>${fields.DMARCHost}</code>; reporters send one a day.</p>` : ''}`;
    return page({ ...c.frame(`DMARC: ${d.name}`, 'senders'), scripts: ['/console/assets/uPlot.iife.min.js', '/console/assets/dmarc.js'], styles: ['/console/assets/uPlot.min.css'] }, body);
  });
}
