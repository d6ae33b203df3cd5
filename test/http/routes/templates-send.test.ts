import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'tpl@example.com';

describe('POST /email/withTemplate and /email/batchWithTemplates', () => {
  let s: TestService;
  let templateId: number;
  const stored = (id: string) => s.ctx.db.selectFrom('messages').select(['subject', 'html_body', 'text_body', 'tag']).where('id', '=', id).executeTakeFirstOrThrow();
  const messageCount = async () => Number((await s.ctx.db.selectFrom('messages').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    const layout = await s.request('POST', '/templates', {
      body: { Name: 'Base', Alias: 'base', TemplateType: 'Layout', HtmlBody: '<html><head><style>.x { color: red; }</style></head><body>{{{@content}}}</body></html>', TextBody: '{{{@content}}}\n-- {{company}}' },
    });
    assert.equal(layout.status, 200, layout.text);
    const t = await s.request('POST', '/templates', {
      body: {
        Name: 'Receipt',
        Alias: 'receipt',
        LayoutTemplate: 'base',
        Subject: 'Receipt for {{name}}',
        HtmlBody: '<p class="x">Hi {{name}}</p><ul>{{#each items}}<li>{{title}}</li>{{/each}}</ul>',
        TextBody: 'Hi {{name}}{{#each items}}\n* {{title}}{{/each}}',
      },
    });
    assert.equal(t.status, 200, t.text);
    templateId = t.body.TemplateId;
  });
  after(() => s.close());

  it('renders the template inside its layout, inlines CSS and sends it as an ordinary message', async () => {
    const r = await s.request('POST', '/email/withTemplate/', {
      body: { From: FROM, To: 'a@example.net', Tag: 'receipts', TemplateAlias: 'RECEIPT', TemplateModel: { name: 'Tom & <Jerry>', company: 'ACME', items: [{ title: 'A' }, { title: 'B' }] } },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.ErrorCode, 0);
    const m = await stored(r.body.MessageID);
    assert.equal(m.subject, 'Receipt for Tom & <Jerry>');
    assert.equal(m.tag, 'receipts');
    assert.equal(m.html_body, '<html><head></head><body><p class="x" style="color: red;">Hi Tom &amp; &lt;Jerry&gt;</p><ul><li>A</li><li>B</li></ul></body></html>');
    assert.equal(m.text_body, 'Hi Tom & <Jerry>\n* A\n* B\n-- ACME');

    const raw = await s.request('POST', '/email/withTemplate', { body: { From: FROM, To: 'a@example.net', TemplateId: templateId, TemplateModel: {}, InlineCss: false } });
    assert.equal(raw.status, 200, raw.text);
    const m2 = await stored(raw.body.MessageID);
    assert.match(m2.html_body!, /<style>\.x \{ color: red; \}<\/style>/);
    assert.equal(m2.subject, 'Receipt for ', 'missing values render empty');
  });

  it('refuses a message whose template is missing, is a layout or does not render, storing nothing', async () => {
    const before = await messageCount();
    const cases: [Record<string, unknown>, number][] = [
      [{ TemplateAlias: 'nope' }, 1101],
      [{ TemplateId: 999999 }, 1101],
      [{ TemplateAlias: 'base' }, 1125],
      [{}, 1120],
      [{ TemplateId: templateId, TemplateModel: [1, 2] }, 403],
      [{ TemplateId: 'abc' }, 403],
      [{ TemplateId: templateId, InlineCss: 'yes' }, 403],
      [{ TemplateId: templateId, To: 'not an address' }, 300],
    ];
    for (const [extra, code] of cases) {
      const r = await s.request('POST', '/email/withTemplate', { body: { From: FROM, To: 'a@example.net', ...extra } });
      assert.equal(r.status, 422, `${JSON.stringify(extra)} ${r.text}`);
      assert.equal(r.body.ErrorCode, code, `${JSON.stringify(extra)} ${r.text}`);
    }
    // A model that would blow the rendered body past its limit: refused whole, never half-rendered.
    const big = await s.request('POST', '/templates', {
      body: { Name: 'Big', Alias: 'big', Subject: 's', TextBody: '{{#each l}}{{s}}{{/each}}' },
    });
    assert.equal(big.status, 200, big.text);
    const l = Array.from({ length: 110 }, () => 1);
    const model = { l, s: 'x'.repeat(100_000) };
    const r = await s.request('POST', '/email/withTemplate', { body: { From: FROM, To: 'a@example.net', TemplateAlias: 'big', TemplateModel: model } });
    assert.equal(r.body.ErrorCode, 1122, r.text);
    assert.match(r.body.Message, /TextBody could not be rendered/);
    assert.equal(await messageCount(), before);
  });

  it('sends a batch, each message answered on its own in order', async () => {
    const before = await messageCount();
    const ok = { From: FROM, To: 'b@example.net', TemplateAlias: 'receipt', TemplateModel: { name: 'B' } };
    const r = await s.request('POST', '/email/batchWithTemplates', { body: { Messages: [ok, { ...ok, TemplateAlias: 'nope' }, { ...ok, TemplateModel: { name: 'C' } }, 'junk'] } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.map((x: any) => x.ErrorCode),
      [0, 1101, 0, 300],
    );
    assert.equal(await messageCount(), before + 2);
    assert.equal((await stored(r.body[2].MessageID)).subject, 'Receipt for C');

    const tooMany = await s.request('POST', '/email/batchWithTemplates', { body: { Messages: Array.from({ length: 501 }, () => ok) } });
    assert.equal(tooMany.body.ErrorCode, 410);
    assert.equal((await s.request('POST', '/email/batchWithTemplates', { body: [ok] })).body.ErrorCode, 300);
  });

  it('answers a repeated Idempotency-Key with the same results', async () => {
    const body = { Messages: [{ From: FROM, To: 'c@example.net', TemplateAlias: 'nope' }, { From: FROM, To: 'c@example.net', TemplateAlias: 'receipt', TemplateModel: { name: 'D' } }] };
    const headers = { 'idempotency-key': 'tpl-batch-1' };
    const first = await s.request('POST', '/email/batchWithTemplates', { body, headers });
    const count = await messageCount();
    const again = await s.request('POST', '/email/batchWithTemplates', { body, headers });
    assert.deepEqual(again.body, first.body);
    assert.equal(await messageCount(), count);
  });
});
