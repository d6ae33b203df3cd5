// The console's Inbound pages over real HTTP, with mail delivered over real SMTP to the inbound listener and
// the server's InboundHookUrl a real HTTP receiver on loopback: the list (filters, live arrivals), the message
// page with every post to the hook and its answer, bypass and retry posting again, the inbound rules as the
// API sees them, inbound counts in Statistics, and the role and CSRF checks of every change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendInbound, startInbound, type InboundSetup } from '../../domain/inbound/inbound-helpers.js';
import { waitFor } from '../../helpers/wait.js';
import { ADMIN, addUsers, ConsoleClient, VIEWER } from './helpers.js';

describe('console: inbound', () => {
  let t: InboundSetup;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  before(async () => {
    t = await startInbound();
    await addUsers(t.s);
    admin = new ConsoleClient(t.s);
    await admin.signIn(ADMIN);
    viewer = new ConsoleClient(t.s);
    await viewer.signIn(VIEWER);
  });
  after(() => t.close());

  const at = (path: string) => `/console/s/${t.s.serverId}${path}`;
  const idOf = (answer: { response: string }) => /as ([0-9a-f-]{36})/.exec(answer.response)![1]!;
  const posted = (subject: string) => t.app.requests.filter((r) => r.json?.Subject === subject).length;
  const status = async (id: string) => (await t.s.request('GET', `/messages/inbound/${id}/details`)).body.Status as string;

  it('lists mail received over SMTP, newest first, and hands new arrivals to the live poll', async () => {
    const empty = await admin.get(at('/inbound'));
    assert.equal(empty.status, 200);
    assert.match(empty.text, /<a href="\/console\/s\/\d+\/inbound" aria-current="page">Inbound<\/a>/);
    const live = /data-live="([^"]+)"/.exec(empty.text)![1]!.replace(/&amp;/g, '&');

    const first = await sendInbound(t.s, { to: t.address, subject: 'Where is my parcel?', text: 'It did not come.\n\nOn Mon, Support wrote:\n> Shipped today.' });
    assert.ok(first.ok, first.response);
    const second = await sendInbound(t.s, { to: t.address.replace('@', '+orders-42@'), subject: 'Refund please', headers: { 'X-PM-Tag': 'refunds' } });
    assert.ok(second.ok, second.response);

    const arrivals = await admin.get(live);
    assert.equal(arrivals.status, 200);
    const j = JSON.parse(arrivals.text) as { html: string; count: number; newest: string };
    assert.equal(j.count, 2);
    assert.ok(j.html.indexOf('Refund please') < j.html.indexOf('Where is my parcel?'), 'newest first');
    assert.ok(j.newest.endsWith(idOf(second)));
    // Polling again from the newest: nothing new.
    const again = JSON.parse((await admin.get(live.replace(/after=[^&]+/, `after=${j.newest}`))).text) as { count: number };
    assert.equal(again.count, 0);

    const list = await admin.get(at('/inbound'));
    assert.ok(list.text.indexOf('Refund please') < list.text.indexOf('Where is my parcel?'));
    // The inbound API's filters.
    const byHash = await admin.get(at('/inbound?mailboxhash=orders-42'));
    assert.match(byHash.text, /Refund please/);
    assert.doesNotMatch(byHash.text, /Where is my parcel/);
    const byTag = await admin.get(at('/inbound?tag=refunds&subject=REFUND'));
    assert.match(byTag.text, /Refund please/);
    const bySender = await admin.get(at('/inbound?fromemail=nobody'));
    assert.match(bySender.text, /No inbound messages match/);
    const byDate = await admin.get(at('/inbound?fromdate=2000-01-01&todate=2000-01-02'));
    assert.doesNotMatch(byDate.text, /Refund please/);
    const badDate = await admin.get(at('/inbound?fromdate=yesterday'));
    assert.equal(badDate.status, 200);
    assert.match(badDate.text, /role="alert">fromdate is not a date/);
  });

  it('shows a message with its parsed fields, stripped reply, attachments, verdicts and each post with the answer', async () => {
    t.app.respond(200);
    const answer = await sendInbound(t.s, {
      to: t.address,
      cc: 'Ops <ops@acme.example>',
      subject: 'Invoice 77',
      text: 'Attached.\n\nOn Tue, Support <support@acme.example> wrote:\n> Please send it.',
      html: '<p>Attached.</p>',
      attachments: [{ filename: 'invoice-77.pdf', content: Buffer.alloc(1234, 65), contentType: 'application/pdf' }],
      // A sender's own verdict: without a spamd mailroom keeps it as a header, never as its own score.
      headers: { 'X-Spam-Status': 'No, score=-100 (forged by the sender)' },
    });
    assert.ok(answer.ok, answer.response);
    const id = idOf(answer);
    await t.s.drain();
    const p = await admin.get(at(`/inbound/messages/${id}`));
    assert.equal(p.status, 200);
    assert.match(p.text, /<h1>Invoice 77<\/h1>/);
    assert.match(p.text, /<bdi>Jane Customer<\/bdi> &lt;<bdi>jane@customer\.example<\/bdi>&gt;/);
    assert.match(p.text, /<dt>Cc<\/dt><dd><bdi>Ops<\/bdi> &lt;<bdi>ops@acme\.example<\/bdi>&gt;/);
    assert.match(p.text, /<pre id="stripped-reply">Attached\.<\/pre>/);
    assert.match(p.text, /invoice-77\.pdf<\/bdi> <span class="muted">\(application\/pdf, 1,234 bytes\)/);
    assert.match(p.text, /<dt>Authentication-Results<\/dt><dd><code class="field-value">[^<]*spf=pass/);
    assert.match(p.text, /not scored \(no spamd configured\)/);
    const verdicts = /<dl class="summary verdicts">([\s\S]*?)<\/dl>/.exec(p.text)![1]!;
    assert.doesNotMatch(verdicts, /forged/);
    assert.match(p.text, /<th scope="row">X-Spam-Status<\/th><td><code class="field-value">No, score=-100 \(forged by the sender\)<\/code>/);
    assert.match(p.text, /<table class="list labelled" id="hook-log">[\s\S]*status-delivered">delivered<\/span><\/td><td data-label="HTTP status">200<\/td>[\s\S]*<pre class="excerpt">ok<\/pre>/);
    assert.match(p.text, /<iframe id="html-preview" class="preview" title="HTML body of the message" sandbox src="[^"]+\/body"><\/iframe>/);
    const body = await admin.get(at(`/inbound/messages/${id}/body`));
    assert.match(body.text, /<p>Attached\.<\/p>/);
    assert.match(body.headers.get('content-security-policy')!, /^default-src 'none';.*sandbox$/);
    // The API's details carry the answer too.
    const d = (await t.s.request('GET', `/messages/inbound/${id}/details`)).body;
    assert.equal(d.HookAttempts[0].Response, 'ok');
    // Another server's token or an unknown id: not found.
    assert.equal((await admin.get(at('/inbound/messages/00000000-0000-0000-0000-000000000000'))).status, 422); // the API's MessageNotFound
  });

  it('adds a rule (the API lists it), blocks mail by it, and only an admin with the CSRF token bypasses it', async () => {
    const added = await admin.post(at('/inbound/rules/add'), { rule: 'Spam.Example' });
    assert.equal(added.status, 303);
    const rules = (await t.s.request('GET', '/triggers/inboundrules?count=50&offset=0')).body;
    assert.deepEqual(rules.InboundRules.map((r: { Rule: string }) => r.Rule), ['spam.example']);
    assert.match((await admin.get(at('/inbound/rules'))).text, /<code>spam\.example<\/code>/);
    // A viewer sees the rules but cannot change them.
    const vPage = await viewer.get(at('/inbound/rules'));
    assert.doesNotMatch(vPage.text, /Add rule|Remove<\/button>/);
    assert.equal((await viewer.post(at('/inbound/rules/add'), { rule: 'other.example' })).status, 403);
    assert.equal((await viewer.post(at(`/inbound/rules/${rules.InboundRules[0].ID}/remove`))).status, 403);
    assert.equal((await admin.post(at('/inbound/rules/add'), { rule: 'not a rule' })).status, 422);
    assert.equal((await t.s.request('GET', '/triggers/inboundrules?count=50&offset=0')).body.TotalCount, 1);

    const answer = await sendInbound(t.s, { from: 'Promo <deals@spam.example>', to: t.address, subject: 'Buy now' }, [t.address]);
    assert.ok(answer.ok, answer.response);
    const id = idOf(answer);
    await t.s.drain();
    assert.equal(await status(id), 'Blocked');
    assert.equal(posted('Buy now'), 0);
    assert.match((await admin.get(at(`/inbound/messages/${id}`))).text, /id="hook-none">Not posted: blocked messages are not posted unless bypassed\./);
    const p = await admin.get(at(`/inbound/messages/${id}`));
    assert.match(p.text, /<p id="blocked-reason">Blocked by the inbound rule &#39;spam\.example&#39;\.<\/p>/);
    assert.match(p.text, /Bypass and post it/);
    assert.match((await viewer.get(at(`/inbound/messages/${id}`))).text, /An admin can bypass this message/);
    assert.equal((await viewer.post(at(`/inbound/messages/${id}/bypass`))).status, 403);
    assert.equal((await admin.post(at(`/inbound/messages/${id}/bypass`), { _csrf: '' })).status, 403);
    assert.equal((await admin.request('POST', at(`/inbound/messages/${id}/bypass`), {})).status, 403);
    assert.equal(await status(id), 'Blocked');

    const bypassed = await admin.post(at(`/inbound/messages/${id}/bypass`));
    assert.equal(bypassed.status, 303);
    assert.equal(bypassed.location, at(`/inbound/messages/${id}`));
    await t.s.drain();
    await waitFor(() => posted('Buy now') === 1, { what: 'the bypassed message at the InboundHookUrl' });
    assert.equal(await status(id), 'Processed');
    const done = await admin.get(at(`/inbound/messages/${id}`));
    assert.doesNotMatch(done.text, /Bypass and post it/);
    assert.match(done.text, /<td data-label="HTTP status">200<\/td>/);
    // Bypassing again is refused with the reason, back on the page.
    const twice = await admin.request('POST', at(`/inbound/messages/${id}/bypass`), { _csrf: admin.csrf });
    assert.equal(twice.status, 422);
    assert.match(twice.text, /is Processed; only a Blocked message can be bypassed/);

    const removed = await admin.post(at(`/inbound/rules/${rules.InboundRules[0].ID}/remove`));
    assert.equal(removed.status, 303);
    assert.equal((await t.s.request('GET', '/triggers/inboundrules?count=50&offset=0')).body.TotalCount, 0);
  });

  it('retries a Failed message from the console: posted again, both answers on its page', async () => {
    // 403 stops the retries at once (docs "Parse an email"): the message is Failed after one post.
    t.app.respond(403);
    const answer = await sendInbound(t.s, { to: t.address, subject: 'Failing one' });
    assert.ok(answer.ok, answer.response);
    const id = idOf(answer);
    await t.s.drain();
    assert.equal(await status(id), 'Failed');
    const failed = await admin.get(at(`/inbound/messages/${id}`));
    assert.match(failed.text, /<td data-label="HTTP status">403<\/td>[\s\S]*<pre class="excerpt">status 403<\/pre>/);
    assert.equal((await viewer.post(at(`/inbound/messages/${id}/retry`))).status, 403);

    t.app.respond(200);
    assert.equal((await admin.post(at(`/inbound/messages/${id}/retry`))).status, 303);
    await t.s.drain();
    await waitFor(() => posted('Failing one') === 2, { what: 'the retried message at the InboundHookUrl' });
    assert.equal(await status(id), 'Processed');
    const p = await admin.get(at(`/inbound/messages/${id}`));
    assert.equal((p.text.match(/<pre class="excerpt">/g) ?? []).length, 2);
    assert.match(p.text, /<pre class="excerpt">ok<\/pre>/);
  });

  it('counts inbound mail by status in Statistics, for the selected range', async () => {
    const today = new Date(t.s.clock.now() + 3 * 3600_000).toISOString().slice(0, 10);
    const p = await admin.get(at(`/stats?fromdate=${today}&todate=${today}`));
    assert.equal(p.status, 200);
    const figures = /<div class="figures" id="inbound-figures">([\s\S]*?)<figcaption>Inbound messages per day/.exec(p.text)![1]!;
    const figure = (label: string) => Number(new RegExp(`<span class="value">(\\d+)</span><span class="label">${label}</span>`).exec(figures)![1]);
    const api = (await t.s.request('GET', `/stats/inbound?fromdate=${today}&todate=${today}`)).body;
    assert.equal(figure('Received'), api.Total);
    assert.equal(figure('Received'), 5);
    assert.equal(figure('Processed'), api.Processed);
    assert.equal(figure('Blocked'), api.Blocked);
    assert.equal(figure('Failed'), api.Failed);
    assert.match(p.text, new RegExp(`<tr><td>${today}</td><td>5</td>`));
    const data = JSON.parse(/<script type="application\/json" id="stats-data">([^<]*)<\/script>/.exec(p.text)![1]!);
    assert.deepEqual(data.inbound.Received, [5]);
    const past = await admin.get(at('/stats?fromdate=2001-01-01&todate=2001-01-03'));
    assert.match(past.text, /<span class="value">0<\/span><span class="label">Received<\/span>/);
  });

  it('keeps each server to its own inbound mail and rules', async () => {
    const other = await t.s.request('POST', '/servers', { body: { Name: 'Other app' }, accountToken: t.s.accountToken });
    assert.equal(other.status, 200, other.text);
    const sid = other.body.ID as number;
    await t.s.request('POST', '/triggers/inboundrules', { body: { Rule: 'first-server-only.example' } });
    const answer = await sendInbound(t.s, { from: 'x@first-server-only.example', to: t.address, subject: 'For the first server' }, [t.address]);
    const id = idOf(answer);
    const theirs = (path: string) => `/console/s/${sid}${path}`;
    assert.doesNotMatch((await admin.get(theirs('/inbound'))).text, /For the first server/);
    assert.match((await admin.get(theirs('/inbound'))).text, /No inbound messages match/);
    assert.equal((await admin.get(theirs(`/inbound/messages/${id}`))).status, 422);
    assert.equal((await admin.get(theirs(`/inbound/messages/${id}/body`))).status, 422);
    assert.equal((await admin.request('POST', theirs(`/inbound/messages/${id}/bypass`), { _csrf: admin.csrf })).status, 422);
    assert.equal(await status(id), 'Blocked');
    assert.doesNotMatch((await admin.get(theirs('/inbound/rules'))).text, /first-server-only/);
    const ruleId = (await t.s.request('GET', '/triggers/inboundrules?count=50&offset=0')).body.InboundRules.find((r: { Rule: string }) => r.Rule === 'first-server-only.example').ID;
    assert.equal((await admin.request('POST', theirs(`/inbound/rules/${ruleId}/remove`), { _csrf: admin.csrf })).status, 422); // the API's answer to another server's rule id
    assert.equal((await t.s.request('GET', '/triggers/inboundrules?count=50&offset=0')).body.TotalCount, 1);
  });

  it('cuts a large text body on the message page and links to the whole as plain text', async () => {
    const text = `${'<&> a long line of a forwarded log\n'.repeat(120_000)}THE END`;
    const sent = await sendInbound(t.s, { to: t.address, subject: 'Huge inbound', text });
    assert.ok(sent.ok, sent.response);
    const id = idOf(sent);
    const page = await admin.get(at(`/inbound/messages/${id}`));
    assert.equal(page.status, 200);
    assert.ok(page.text.length < 600_000, `the page is ${page.text.length} characters`);
    assert.doesNotMatch(page.text, /THE END/);
    assert.match(page.text, /Showing the first 65,536 of [\d,]+ characters/);
    assert.match(page.text, new RegExp(`href="/console/s/${t.s.serverId}/inbound/messages/${id}/text"`));
    const whole = await admin.get(at(`/inbound/messages/${id}/text`));
    assert.equal(whole.status, 200);
    assert.match(whole.headers.get('content-type')!, /^text\/plain/);
    assert.match(whole.text, /THE END\s*$/);
    assert.ok(whole.text.length > 4_000_000);
  });

  it('reads a large message (its stored payload parsed on a parser thread) for the API and the page', async () => {
    const content = Buffer.alloc(600 * 1024, 'a');
    const sent = await sendInbound(t.s, { to: t.address, subject: 'Large scan', attachments: [{ filename: 'scan.pdf', content, contentType: 'application/pdf' }] });
    assert.ok(sent.ok, sent.response);
    const id = idOf(sent);
    const d = (await t.s.request('GET', `/messages/inbound/${id}/details`)).body;
    assert.equal(d.Subject, 'Large scan');
    assert.deepEqual(d.Attachments.map((a: { Name: string; ContentLength: number }) => [a.Name, a.ContentLength]), [['scan.pdf', content.length]]);
    // The content is there until the InboundHookUrl has taken the message (then it is dropped, payload.ts).
    assert.ok([0, Math.ceil(content.length / 3) * 4].includes(d.Attachments[0].Content.length));
    const page = await viewer.get(at(`/inbound/messages/${id}`));
    assert.equal(page.status, 200);
    assert.match(page.text, /scan\.pdf<\/bdi> <span class="muted">\(application\/pdf, 614,400 bytes\)/);
  });
});
