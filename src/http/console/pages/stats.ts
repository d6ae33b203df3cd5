// Statistics: the API's overview and day series (domain/stats) over a date range, by tag and stream, in the
// same Moscow days as the API, drawn with uPlot by assets/stats.js from a JSON data block in the page.
import type { AppContext } from '../../../domain/app-context.js';
import { inboundDays } from '../../../domain/inbound/stats.js';
import { daySeries, outboundOverview } from '../../../domain/stats/reports.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { DAY_MS, moscowDay } from '../../../infra/time.js';
import { html, trusted } from '../html.js';
import { page, ISO_DATE } from '../layout.js';
import type { ConsoleRouter } from '../router.js';

const MAX_DAYS = 400;

/** Every Moscow day from..to inclusive (capped), so the chart shows quiet days as zero. */
function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && out.length < MAX_DAYS; t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

export function registerStats(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/stats', async (c) => {
    const today = moscowDay(ctx.clock.now());
    const q = c.query;
    const f = { fromdate: /^\d{4}-\d{2}-\d{2}$/.test(q.fromdate ?? '') ? q.fromdate : moscowDay(ctx.clock.now() - 29 * DAY_MS), todate: /^\d{4}-\d{2}-\d{2}$/.test(q.todate ?? '') ? q.todate : today, tag: q.tag || undefined, messagestream: q.stream || undefined };
    const [overview, sends, bounces, spam, opens, clicks, streams, inDays] = await Promise.all([
      outboundOverview(ctx.db, c.server.id, f),
      daySeries(ctx.db, c.server.id, 'sends', f),
      daySeries(ctx.db, c.server.id, 'bounces', f),
      daySeries(ctx.db, c.server.id, 'spam', f),
      daySeries(ctx.db, c.server.id, 'opens', f),
      daySeries(ctx.db, c.server.id, 'clicks', f),
      listStreams(ctx.db, c.server.id, {}),
      // Inbound mail has no tag or stream filter of the outbound kind: the range alone applies.
      inboundDays(ctx, c.server.id, f.fromdate!, f.todate!),
    ]);
    const days = daysBetween(f.fromdate!, f.todate!);
    const on = (series: { Days: Array<Record<string, number | string>> }, key?: string) => {
      const byDay = new Map(series.Days.map((d) => [d.Date as string, key ? Number(d[key] ?? 0) : Object.entries(d).reduce((a, [k, v]) => (k === 'Date' ? a : a + Number(v)), 0)]));
      return days.map((d) => byDay.get(d) ?? 0);
    };
    const inByDay = new Map(inDays.map((d) => [d.Date, d]));
    const inbound = days.map((d) => inByDay.get(d) ?? { Date: d, Received: 0, Processed: 0, Blocked: 0, Failed: 0, Pending: 0 });
    const sent = on(sends, 'Sent');
    const bounced = on(bounces);
    const data = {
      days,
      series: { Sent: sent, Delivered: sent.map((s, i) => Math.max(s - bounced[i]!, 0)), Bounced: bounced, 'Spam complaints': on(spam, 'SpamComplaint'), Opens: on(opens, 'Opens'), Clicks: on(clicks, 'Clicks') },
      bounceRate: sent.map((s, i) => (s === 0 ? 0 : Math.round((bounced[i]! / s) * 10000) / 100)),
      inbound: { Received: inbound.map((d) => d.Received), Processed: inbound.map((d) => d.Processed), Blocked: inbound.map((d) => d.Blocked), Failed: inbound.map((d) => d.Failed) },
    };
    const inTotal = (k: 'Received' | 'Processed' | 'Blocked' | 'Failed' | 'Pending') => inDays.reduce((a, d) => a + d[k], 0);
    // A JSON data block is never executed; `<` is escaped so no value can close the element.
    const json = trusted(JSON.stringify(data).replace(/</g, '\\u003c'));
    const figure = (label: string, value: string | number) => html`<div class="figure"><span class="value">${value}</span><span class="label">${label}</span></div>`;
    const body = html`<form method="get" class="filters" aria-label="Range">
  <div class="field"><label for="st-from">From</label><input id="st-from" ${ISO_DATE} name="fromdate" value="${f.fromdate}"></div>
  <div class="field"><label for="st-to">To</label><input id="st-to" ${ISO_DATE} name="todate" value="${f.todate}"></div>
  <div class="field"><label for="st-tag">Tag</label><input id="st-tag" name="tag" value="${q.tag ?? ''}"></div>
  <div class="field"><label for="st-stream">Stream</label><select id="st-stream" name="stream"><option value="">all</option>${streams.map((s) => html`<option value="${s.id}"${q.stream === s.id ? html` selected` : ''}>${s.name}</option>`)}</select></div>
  <div class="field"><button type="submit">Show</button></div></form>
<p class="muted">Days are Moscow days (UTC+3), as in the statistics API.</p>
<div class="figures">${figure('Sent', overview.Sent)}${figure('Bounced', overview.Bounced)}${figure('Bounce rate', `${overview.BounceRate}%`)}${figure('Spam complaints', overview.SpamComplaints)}${figure('Opens', overview.Opens)}${figure('Unique opens', overview.UniqueOpens)}${figure('Clicks', overview.TotalClicks)}</div>
<script type="application/json" id="stats-data">${json}</script>
<figure><figcaption>Messages per day</figcaption><div class="chart" id="chart-volume" role="img" aria-label="Messages per day: sent, delivered, bounced, spam complaints, opens, clicks"></div></figure>
<figure><figcaption>Bounce rate per day (%)</figcaption><div class="chart" id="chart-rate" role="img" aria-label="Bounce rate per day"></div></figure>
<details><summary>Table</summary><table class="list"><thead><tr><th scope="col">Day</th>${Object.keys(data.series).map((k) => html`<th scope="col">${k}</th>`)}</tr></thead><tbody>${days.map((d, i) => html`<tr><td>${d}</td>${Object.values(data.series).map((s) => html`<td>${s[i]}</td>`)}</tr>`)}</tbody></table></details>
<h2 id="inbound">Inbound</h2>
<p class="muted">Mail received for the server's inbound address in the same days (the tag and stream filters are for outbound mail). <a href="/console/s/${c.server.id}/inbound">Inbound messages</a></p>
<div class="figures" id="inbound-figures">${figure('Received', inTotal('Received'))}${figure('Processed', inTotal('Processed'))}${figure('Blocked', inTotal('Blocked'))}${figure('Failed', inTotal('Failed'))}${figure('Pending', inTotal('Pending'))}</div>
<figure><figcaption>Inbound messages per day</figcaption><div class="chart" id="chart-inbound" role="img" aria-label="Inbound messages per day: received, processed, blocked, failed"></div></figure>
<details><summary>Inbound table</summary><table class="list" id="inbound-days"><thead><tr><th scope="col">Day</th><th scope="col">Received</th><th scope="col">Processed</th><th scope="col">Blocked</th><th scope="col">Failed</th><th scope="col">Pending</th></tr></thead><tbody>${inbound.filter((d) => d.Received > 0).map((d) => html`<tr><td>${d.Date}</td><td>${d.Received}</td><td>${d.Processed}</td><td>${d.Blocked}</td><td>${d.Failed}</td><td>${d.Pending}</td></tr>`)}</tbody></table></details>`;
    return page({ ...c.frame('Statistics', 'stats'), scripts: ['/console/assets/uPlot.iife.min.js', '/console/assets/stats.js'], styles: ['/console/assets/uPlot.min.css'] }, body);
  });
}
