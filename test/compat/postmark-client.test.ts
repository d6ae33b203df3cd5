// Compatibility tier (issue 18): the hosted service's official Node client (`postmark`, a devDependency)
// pointed at a running mailroom drives every one of its methods that mailroom implements, and each answer
// is checked against the shape the client's own type declarations promise (declared-shape.ts). The
// methods mailroom does not implement are listed in README.md ("Compatibility with the hosted service's
// clients") with the reason.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccountClient, ServerClient } from 'postmark';
import { addConfirmedSender } from '../helpers/senders.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { sendInbound } from '../domain/inbound/inbound-helpers.js';
import { clickUrl, openUrl } from '../../src/domain/tracking/tokens.js';
import { shapeProblems } from './declared-shape.js';
import { dayProblems, hostedProblems } from './hosted-shape.js';

// Where the client's declarations disagree with the hosted service's own documented answers (and so with
// mailroom): OutboundMessages.TotalCount is declared a string, the documented answer is a number;
// MessageStreamArchiveResponse.ID is declared a number, the stream ID is a string; InboundMessages.TotalCount
// is declared a string, a count like every other list's TotalCount (InboundRules' included) is a number.
const CLIENT_DECLARATION_MISTAKES: Record<string, string[]> = { OutboundMessages: ['TotalCount'], MessageStreamArchiveResponse: ['ID'], InboundMessages: ['TotalCount'] };

function conforms(name: string, value: unknown): void {
  const problems = shapeProblems(name, value, CLIENT_DECLARATION_MISTAKES[name] ?? []);
  assert.deepEqual(problems, [], `${name}: ${JSON.stringify(value).slice(0, 400)}`);
}
function conformsAll(name: string, values: unknown[]): void {
  for (const v of values) conforms(name, v);
}
/** The published value sets and types, which the hosted service's Python client enforces (hosted-shape.ts). */
function hosted(name: Parameters<typeof hostedProblems>[0], ...values: unknown[]): void {
  for (const v of values) assert.deepEqual(hostedProblems(name, v), [], `${name}: ${JSON.stringify(v).slice(0, 400)}`);
}
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('the official postmark client against mailroom', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let server: ServerClient;
  let account: AccountClient;
  let app: WebhookReceiver;
  const used = new Set<string>();
  before(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    // The inbound senders' domain authorizes loopback, so their mail passes SPF (RFC 7208).
    dns.set('customer.example', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' }]);
    app = await startWebhookReceiver();
    // The application receiving inbound mail (InboundHookUrl) listens on loopback.
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DNS_SERVERS: dns.address, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await addConfirmedSender(s, 'sender@example.com');
    const options = { useHttps: false, requestHost: s.url.replace(/^http:\/\//, ''), timeout: 30 };
    // Every call goes through a proxy that notes the method used, for the coverage check at the end.
    const track = <T extends object>(client: T, prefix: string): T =>
      new Proxy(client, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver);
          if (typeof v === 'function' && typeof prop === 'string') used.add(`${prefix}.${prop}`);
          return v;
        },
      });
    server = track(new ServerClient(s.serverToken, options), 'ServerClient');
    account = track(new AccountClient(s.accountToken, options), 'AccountClient');
  });
  after(async () => {
    await s.close();
    await sink.close();
    await dns.close();
    await app.close();
  });

  it('sends email, with and without templates, and reads messages, bounces and statistics back', async () => {
    const one = await server.sendEmail({ From: 'sender@example.com', To: 'reader@dest.example', Subject: 'Hello', TextBody: 'Hi', HtmlBody: '<p>Hi <a href="https://example.com/x">x</a></p>', Tag: 'compat', TrackOpens: true, Metadata: { order: '7' } });
    conforms('MessageSendingResponse', one);
    assert.equal(one.ErrorCode, 0);
    sink.rcptReplies.set('gone@dest.example', { code: 550, message: '5.1.1 No such user' });
    const batch = await server.sendEmailBatch([
      { From: 'sender@example.com', To: 'gone@dest.example', Subject: 'A', TextBody: 'a' },
      { From: 'sender@example.com', To: 'b@dest.example', Subject: 'B', TextBody: 'b' },
    ]);
    conformsAll('MessageSendingResponse', batch);

    const created = await server.createTemplate({ Name: 'Compat', Alias: 'compat', Subject: 'Hi {{name}}', HtmlBody: '<p>{{name}}</p>', TextBody: '{{name}}' });
    // Create and edit answer the documented summary {TemplateId, Name, Alias, TemplateType, LayoutTemplate,
    // Active}; the client declares the full Template, whose content fields GET returns.
    const SUMMARY_ONLY = ['Subject', 'HtmlBody', 'TextBody', 'AssociatedServerId'];
    assert.deepEqual(shapeProblems('Template', created, SUMMARY_ONLY), []);
    const layout = await server.createTemplate({ Name: 'Layout without alias', TemplateType: 'Layout' as never, HtmlBody: '<div>{{{@content}}}</div>' });
    assert.equal(layout.TemplateType, 'Layout');
    const list = await server.getTemplates({ count: 50, offset: 0 });
    conforms('Templates', list);
    const got = await server.getTemplate('compat');
    conforms('Template', got);
    hosted('Template', got, ...list.Templates);
    const edited = await server.editTemplate(created.TemplateId, { Subject: 'Hello {{name}}' });
    assert.equal(edited.TemplateId, created.TemplateId);
    assert.deepEqual(shapeProblems('Template', edited, SUMMARY_ONLY), []);
    const validation = await server.validateTemplate({ Subject: '{{name}}', HtmlBody: '<p>{{#each items}}{{title}}{{/each}}</p>', TextBody: 'x' });
    conforms('TemplateValidation', validation);
    const templated = await server.sendEmailWithTemplate({ From: 'sender@example.com', To: 'reader@dest.example', TemplateAlias: 'compat', TemplateModel: { name: 'Ann' } });
    conforms('MessageSendingResponse', templated);
    const templatedBatch = await server.sendEmailBatchWithTemplates([{ From: 'sender@example.com', To: 'reader@dest.example', TemplateId: created.TemplateId, TemplateModel: { name: 'Bo' } }]);
    conformsAll('MessageSendingResponse', templatedBatch);
    conforms('DefaultResponse', await server.deleteTemplate(layout.TemplateId));

    await s.drain();
    // An open and a click from a browser, so the events and the platform and location days have data.
    for (const url of [openUrl(s.ctx, { messageId: one.MessageID, recipient: 'reader@dest.example' }), clickUrl(s.ctx, { messageId: one.MessageID, recipient: 'reader@dest.example', link: 'https://example.com/x', location: 'HTML' })]) {
      const r = await fetch(s.url + new URL(url).pathname, { headers: { 'user-agent': CHROME }, redirect: 'manual' });
      await r.arrayBuffer();
    }

    const messages = await server.getOutboundMessages({ count: 50, offset: 0 });
    conforms('OutboundMessages', messages);
    assert.ok(messages.Messages.length >= 5);
    conformsAll('OutboundMessage', messages.Messages);
    hosted('OutboundMessage', ...messages.Messages);
    const details = await server.getOutboundMessageDetails(one.MessageID);
    conforms('OutboundMessageDetails', details);
    assert.deepEqual(details.MessageEvents.map((e) => e.Type), ['Delivered', 'Opened', 'LinkClicked']);
    // Every message's details, the bounced one's included: only the published event types, every Details
    // value a string (BounceID too), the processing time in the record's ReceivedAt.
    for (const m of messages.Messages) {
      const d = await server.getOutboundMessageDetails(m.MessageID);
      hosted('OutboundMessage', d);
      hosted('MessageEvent', ...d.MessageEvents);
    }
    const bouncedDetails = await server.getOutboundMessageDetails(batch[0]!.MessageID);
    const bouncedEvent = bouncedDetails.MessageEvents.find((e) => e.Type === 'Bounced');
    assert.ok(bouncedEvent, JSON.stringify(bouncedDetails.MessageEvents));
    assert.equal(typeof (bouncedEvent.Details as { BounceID?: unknown }).BounceID, 'string');
    const dump = await server.getOutboundMessageDump(one.MessageID);
    conforms('OutboundMessageDump', dump);
    assert.match(dump.Body, /Subject: Hello/);

    conforms('OutboundMessageOpens', await server.getMessageOpens({ count: 10, offset: 0 }));
    conforms('OutboundMessageOpens', await server.getMessageOpensForSingleMessage(one.MessageID, { count: 10, offset: 0 }));
    conforms('OutboundMessageClicks', await server.getMessageClicks({ count: 10, offset: 0 }));
    conforms('OutboundMessageClicks', await server.getMessageClicksForSingleMessage(one.MessageID, { count: 10, offset: 0 }));

    conforms('DeliveryStatistics', await server.getDeliveryStatistics());
    const bounces = await server.getBounces({ count: 10, offset: 0 });
    conforms('Bounces', bounces);
    assert.equal(bounces.Bounces.length, 1);
    conformsAll('Bounce', bounces.Bounces);
    hosted('Bounce', ...bounces.Bounces);
    assert.equal(String(bounces.Bounces[0]!.ID), (bouncedEvent.Details as { BounceID: string }).BounceID);
    const bounce = await server.getBounce(bounces.Bounces[0].ID);
    conforms('Bounce', bounce);
    assert.equal(bounce.DumpAvailable, true, 'the SMTP exchange is the dump');
    const bounceDump = await server.getBounceDump(bounce.ID);
    conforms('BounceDump', bounceDump);
    assert.match(bounceDump.Body, /550 5\.1\.1 No such user/);
    const activated = await server.activateBounce(bounce.ID);
    conforms('BounceActivationResponse', activated);
    conforms('Bounce', activated.Bounce);

    const stats: Array<[string, () => Promise<unknown>]> = [
      ['OutboundStatistics', () => server.getOutboundOverview({ tag: 'compat' })],
      ['SentCounts', () => server.getSentCounts()],
      ['BounceCounts', () => server.getBounceCounts()],
      ['SpamCounts', () => server.getSpamComplaintsCounts()],
      ['TrackedEmailCounts', () => server.getTrackedEmailCounts()],
      ['OpenCounts', () => server.getEmailOpenCounts()],
      ['EmailPlaformUsageCounts', () => server.getEmailOpenPlatformUsage()],
      ['EmailClientUsageCounts', () => server.getEmailOpenClientUsage()],
      ['EmailReadTimesCounts', () => server.getEmailOpenReadTimes()],
      ['ClickCounts', () => server.getClickCounts()],
      ['BrowserUsageCounts', () => server.getClickBrowserUsage()],
      ['ClickPlatformUsageCounts', () => server.getClickPlatformUsage()],
      ['ClickLocationCounts', () => server.getClickLocation()],
    ];
    for (const [name, call] of stats) conforms(name, await call());
    // Every day of a series carries the series' keys (the Python client requires each of them).
    const series: Array<[string, () => Promise<unknown>]> = [
      ['sends', () => server.getSentCounts()],
      ['bounces', () => server.getBounceCounts()],
      ['spam', () => server.getSpamComplaintsCounts()],
      ['tracked', () => server.getTrackedEmailCounts()],
      ['opens', () => server.getEmailOpenCounts()],
      ['opens/platforms', () => server.getEmailOpenPlatformUsage()],
      ['clicks', () => server.getClickCounts()],
      ['clicks/platforms', () => server.getClickPlatformUsage()],
      ['clicks/location', () => server.getClickLocation()],
    ];
    for (const [name, call] of series) {
      const answer = (await call()) as { Days: Array<Record<string, unknown>> };
      assert.ok(answer.Days.length > 0 || name === 'spam', `${name} has a day`);
      assert.deepEqual(dayProblems(name, answer), [], JSON.stringify(answer));
    }
    assert.equal((await server.getSentCounts()).Sent, 5);
  });

  it('manages the server, its streams, suppressions and webhooks', async () => {
    const srv = await server.getServer();
    conforms('Server', srv);
    hosted('Server', srv);
    const edited = await server.editServer({ Color: 'Red', BounceHookUrl: 'https://hooks.example.com/bounce' });
    conforms('Server', edited);
    assert.equal(edited.Color, 'Red', 'as sent');
    assert.equal(edited.BounceHookUrl, 'https://hooks.example.com/bounce');

    const stream = await server.createMessageStream({ ID: 'compat-news', Name: 'News', MessageStreamType: 'Broadcasts', Description: 'd' });
    conforms('MessageStream', stream);
    const streams = await server.getMessageStreams({ messageStreamType: 'All' as never, includeArchivedStreams: true });
    conforms('MessageStreams', streams);
    conformsAll('MessageStream', streams.MessageStreams);
    hosted('MessageStream', ...streams.MessageStreams);
    hosted('SubscriptionManagementConfiguration', ...streams.MessageStreams.map((x) => x.SubscriptionManagementConfiguration));
    conforms('MessageStream', await server.getMessageStream('compat-news'));
    conforms('MessageStream', await server.editMessageStream('compat-news', { Name: 'News 2' }));
    conforms('MessageStreamArchiveResponse', await server.archiveMessageStream('compat-news'));
    conforms('MessageStreamUnarchiveResponse', await server.unarchiveMessageStream('compat-news'));

    const sup = await server.createSuppressions('outbound', { Suppressions: [{ EmailAddress: 'nope@dest.example' }] });
    conforms('SuppressionStatuses', sup);
    conformsAll('SuppressionStatus', sup.Suppressions);
    const dumped = await server.getSuppressions('outbound');
    conforms('Suppressions', dumped);
    conformsAll('Suppression', dumped.Suppressions);
    hosted('Suppression', ...dumped.Suppressions);
    conforms('SuppressionStatuses', await server.deleteSuppressions('outbound', { Suppressions: [{ EmailAddress: 'nope@dest.example' }] }));

    const hook = await server.createWebhook({ Url: 'https://hooks.example.com/all', MessageStream: 'outbound', Triggers: { Delivery: { Enabled: true } } as never });
    conforms('Webhook', hook);
    const hooks = await server.getWebhooks({ messageStream: 'outbound' });
    conforms('Webhooks', hooks);
    conformsAll('Webhook', hooks.Webhooks);
    assert.ok(hooks.Webhooks.some((h) => h.Url === 'https://hooks.example.com/bounce'), 'the BounceHookUrl webhook is listed');
    conforms('Webhook', await server.getWebhook(hook.ID));
    conforms('Webhook', await server.editWebhook(hook.ID, { Url: 'https://hooks.example.com/all2' }));
    conforms('DefaultResponse', await server.deleteWebhook(hook.ID));
  });

  it('manages servers, domains, sender signatures, template pushes and data removals with the account token', async () => {
    const created = await account.createServer({ Name: 'Compat server', Color: 'Red' });
    conforms('Server', created);
    assert.equal(created.Color, 'Red', 'as sent');
    const servers = await account.getServers({ count: 50, offset: 0 });
    conforms('Servers', servers);
    conformsAll('Server', servers.Servers);
    hosted('Server', ...servers.Servers);
    conforms('Server', await account.getServer(created.ID));
    conforms('Server', await account.editServer(created.ID, { Name: 'Compat server 2' }));
    const push = await account.pushTemplates({ SourceServerID: s.serverId, DestinationServerID: created.ID, PerformChanges: true });
    conforms('TemplatesPush', push);
    conformsAll('TemplatePushAction', push.Templates);
    conforms('DefaultResponse', await account.deleteServer(created.ID));
    // The hosted service's fixed texts reach the client's error.
    await assert.rejects(account.pushTemplates({ SourceServerID: s.serverId, DestinationServerID: 0, PerformChanges: false }), (e: Error & { code?: number }) => {
      assert.equal(e.message, 'The destination server was not found.');
      assert.equal(e.code, 601);
      return true;
    });

    const domain = await account.createDomain({ Name: 'compat-domain.example' });
    conforms('DomainDetails', domain);
    const domains = await account.getDomains({ count: 50, offset: 0 });
    conforms('Domains', domains);
    conformsAll('Domain', domains.Domains);
    conforms('DomainDetails', await account.getDomain(domain.ID));
    conforms('DomainDetails', await account.editDomain(domain.ID, { ReturnPathDomain: 'pm-bounces.compat-domain.example' }));
    conforms('DomainDetails', await account.verifyDomainDKIM(domain.ID));
    conforms('DomainDetails', await account.verifyDomainReturnPath(domain.ID));
    // The hosted service documents {SPFHost, SPFVerified, SPFTextValue} for this call (the client declares
    // DomainDetails); mailroom answers as documented, a subset of DomainDetails.
    const spf = (await account.verifyDomainSPF(domain.ID)) as unknown as Record<string, unknown>;
    assert.deepEqual(Object.keys(spf).sort(), ['SPFHost', 'SPFTextValue', 'SPFVerified']);
    assert.equal(typeof spf.SPFVerified, 'boolean');
    // The first key is still pending, so a rotation is refused as an API error (422, ErrorCode 505), which
    // the client raises; once the key is published and verified, the rotation answers the domain.
    await assert.rejects(account.rotateDomainDKIM(domain.ID), (e: Error & { code?: number; statusCode?: number }) => {
      assert.equal(e.statusCode, 422);
      assert.equal(e.code, 505);
      return true;
    });
    dns.set(domain.DKIMPendingHost, [{ type: 'TXT', data: domain.DKIMPendingTextValue }]);
    assert.equal((await account.verifyDomainDKIM(domain.ID)).DKIMVerified, true);
    const rotated = await account.rotateDomainDKIM(domain.ID);
    conforms('DomainDetails', rotated);
    assert.equal(rotated.DKIMUpdateStatus, 'Pending');
    conforms('DefaultResponse', await account.deleteDomain(domain.ID));

    const sig = await account.createSenderSignature({ FromEmail: 'someone@compat-sig.example', Name: 'Someone' });
    conforms('SignatureDetails', sig);
    // Create, then resend at once: the creation's own email does not count toward the one-minute limit.
    conforms('DefaultResponse', await account.resendSenderSignatureConfirmation(sig.ID));
    const sigs = await account.getSenderSignatures({ count: 50, offset: 0 });
    conforms('Signatures', sigs);
    conformsAll('Signature', sigs.SenderSignatures);
    conforms('SignatureDetails', await account.getSenderSignature(sig.ID));
    conforms('SignatureDetails', await account.editSenderSignature(sig.ID, { Name: 'Someone Else' }));
    // The hosted service documents this answer without ConfirmationPersonalNote (the client declares the
    // full SignatureDetails); everything else is there.
    const sigSpf = await account.verifySenderSignatureSPF(sig.ID);
    assert.deepEqual(shapeProblems('SignatureDetails', sigSpf, ['ConfirmationPersonalNote']), []);
    // A renewal while the first key is pending: the specification reports 505 in this route's result body.
    // (The client declares SignatureDetails; the specification answers {ErrorCode, Message}.)
    const renewed = (await account.requestNewDKIMForSenderSignature(sig.ID)) as unknown as Record<string, unknown>;
    assert.deepEqual(Object.keys(renewed).sort(), ['ErrorCode', 'Message']);
    assert.equal(renewed.ErrorCode, 505);
    conforms('DefaultResponse', await account.deleteSenderSignature(sig.ID));

    const removal = await account.requestDataRemoval({ RequestedBy: 'dpo@example.com', RequestedFor: 'reader@dest.example', NotifyWhenCompleted: false });
    conforms('DataRemovalStatus', removal);
    assert.equal(removal.Status, 'Pending');
    await s.drain();
    const status = await account.getDataRemovalStatus(removal.ID);
    conforms('DataRemovalStatus', status);
    assert.equal(status.Status, 'Done');
  });

  it('reads inbound mail, bypasses a blocked message, retries a failed one and manages inbound rules', async () => {
    const edited = await server.editServer({ InboundHookUrl: `${app.url}/inbound` });
    conforms('Server', edited);
    assert.equal(edited.InboundHookUrl, `${app.url}/inbound`, 'the hook URL is stored');
    const address = edited.InboundAddress;
    const idOf = (answer: { response: string }) => /as ([0-9a-f-]{36})/.exec(answer.response)![1];

    const rule = await server.createInboundRuleTrigger({ Rule: 'spammy.example' });
    conforms('InboundRule', rule);
    assert.equal(rule.Rule, 'spammy.example');
    const rules = await server.getInboundRuleTriggers({ count: 10, offset: 0 });
    conforms('InboundRules', rules);
    conformsAll('InboundRule', rules.InboundRules);
    assert.deepEqual(rules.InboundRules.map((r) => r.ID), [rule.ID]);

    // The application refuses one message with a 403, which stops the retries (Failed).
    app.respond((r) => (r.json?.Subject === 'Refused' ? 403 : 200));
    const processed = await sendInbound(s, {
      to: `"Support" <${address}>`,
      cc: 'Ops <ops@acme.example>',
      subject: 'Invoice',
      headers: { 'X-PM-Tag': 'billing' },
      attachments: [{ filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 invoice'), contentType: 'application/pdf' }],
    });
    const blocked = await sendInbound(s, { from: 'offers@spammy.example', to: address, subject: 'Cheap offers' });
    const refused = await sendInbound(s, { to: address, subject: 'Refused' });
    for (const a of [processed, blocked, refused]) assert.ok(a.ok, a.response);
    await s.drain();

    const list = await server.getInboundMessages({ count: 50, offset: 0 });
    conforms('InboundMessages', list);
    assert.equal(list.TotalCount, 3);
    conformsAll('InboundMessage', list.InboundMessages);
    for (const m of list.InboundMessages) {
      conforms('Recipient', m.FromFull);
      conforms('InboundRecipient', m.FromFull);
      conformsAll('InboundRecipient', [...m.ToFull, ...m.CcFull, ...m.BccFull]);
      conformsAll('Recipient', [...m.ToFull, ...m.CcFull, ...m.BccFull]);
      // The search answer lists attachments without their content (the details carry it); the client
      // declares the sending Attachment, whose Content is required.
      for (const a of m.Attachments) assert.deepEqual(shapeProblems('Attachment', a, ['Content']), []);
    }
    const byId = new Map(list.InboundMessages.map((m) => [m.MessageID, m]));
    assert.equal(byId.get(idOf(processed))?.Status, 'Processed');
    assert.equal(byId.get(idOf(blocked))?.Status, 'Blocked');
    assert.equal(byId.get(idOf(refused))?.Status, 'Failed');
    const onlyBlocked = await server.getInboundMessages({ count: 10, offset: 0, status: 'blocked' as never });
    assert.deepEqual(onlyBlocked.InboundMessages.map((m) => m.MessageID), [idOf(blocked)]);
    const byTag = await server.getInboundMessages({ count: 10, offset: 0, tag: 'billing' });
    assert.deepEqual(byTag.InboundMessages.map((m) => m.MessageID), [idOf(processed)]);

    const details = await server.getInboundMessageDetails(idOf(processed));
    conforms('InboundMessage', details);
    conforms('InboundMessageDetails', details);
    conformsAll('Header', details.Headers);
    conformsAll('Attachment', details.Attachments);
    assert.equal(details.Tag, 'billing');
    assert.equal(details.Attachments[0].Name, 'invoice.pdf');
    assert.equal(details.ToFull[0].Email, address);
    const blockedDetails = await server.getInboundMessageDetails(idOf(blocked));
    conforms('InboundMessageDetails', blockedDetails);
    assert.match(blockedDetails.BlockedReason, /spammy\.example/);

    // Only a Blocked message can be bypassed, only a Failed one retried: the client surfaces the 422.
    await assert.rejects(server.bypassBlockedInboundMessage(idOf(refused)), (e: Error & { statusCode?: number }) => e.statusCode === 422);
    conforms('DefaultResponse', await server.bypassBlockedInboundMessage(idOf(blocked)));
    app.respond(200);
    conforms('DefaultResponse', await server.retryInboundHookForMessage(idOf(refused)));
    await s.drain();
    for (const subject of ['Cheap offers', 'Refused']) {
      assert.ok(app.requests.some((r) => r.json?.Subject === subject), `${subject} reached the application`);
    }
    const after = await server.getInboundMessages({ count: 50, offset: 0, status: 'processed' as never });
    assert.equal(after.TotalCount, 3);

    conforms('DefaultResponse', await server.deleteInboundRuleTrigger(rule.ID));
    assert.equal((await server.getInboundRuleTriggers()).TotalCount, 0);
  });

  it('sends bulk email and follows its status to Completed', async () => {
    const before = sink.messages.length;
    const sent = await server.sendBulkEmail({
      From: 'sender@example.com',
      Subject: 'News for {{name}}',
      TextBody: 'Hello {{name}}',
      MessageStream: 'broadcast',
      Attachments: [{ Name: 'note.txt', Content: Buffer.from('hi').toString('base64'), ContentType: 'text/plain', ContentID: null }],
      Messages: [
        { To: 'bulk-a@dest.example', TemplateModel: { name: 'Ann' } },
        { To: 'bulk-b@dest.example', TemplateModel: { name: 'Bob' }, Metadata: { row: '2' } },
      ],
    });
    conforms('BulkEmailSendingResponse', sent);
    hosted('BulkSendingResponse', sent);
    assert.equal(sent.Status, 'Accepted');
    conforms('BulkEmailStatusResponse', await server.getBulkEmailStatus(sent.Id));
    await s.drain();
    const status = await server.getBulkEmailStatus(sent.Id);
    conforms('BulkEmailStatusResponse', status);
    assert.deepEqual([status.Status, status.TotalMessages, status.PercentageCompleted, status.Subject], ['Completed', 2, 100, 'News for {{name}}']);
    const got = sink.messages.slice(before).filter((m) => m.to.some((t) => t.startsWith('bulk-')));
    assert.deepEqual(got.map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1]).sort(), ['News for Ann', 'News for Bob']);
    await assert.rejects(server.getBulkEmailStatus('no-such-request'), (e: Error & { statusCode?: number }) => e.statusCode === 422);
  });

  it('covers every client method except the ones README lists as not implemented', () => {
    const notImplemented = new Set<string>([]);
    const all: string[] = [];
    for (const [name, proto] of [
      ['ServerClient', ServerClient.prototype],
      ['AccountClient', AccountClient.prototype],
    ] as const) {
      for (const m of Object.getOwnPropertyNames(proto)) if (m !== 'constructor' && typeof (proto as unknown as Record<string, unknown>)[m] === 'function') all.push(`${name}.${m}`);
    }
    const missing = all.filter((m) => !used.has(m) && !notImplemented.has(m));
    assert.deepEqual(missing, [], 'client methods neither driven here nor listed as not implemented');
    for (const m of notImplemented) assert.ok(all.includes(m), `${m} exists in the client`);
  });
});
