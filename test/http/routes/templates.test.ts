import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { startService, type TestService } from '../../helpers/service.js';

const layoutHtml = '<html><head><style>p { color: red; }</style></head><body>{{{@content}}}<footer>{{company}}</footer></body></html>';

describe('templates API', () => {
  let s: TestService;
  let other: { serverId: number; token: string };
  before(async () => {
    s = await startService();
    other = await s.ctx.db.transaction().execute((trx) => createServer(trx, { accountId: s.accountId, name: 'Other' }, s.clock.now()));
  });
  after(() => s.close());

  const post = (body: unknown, token?: string) => s.request('POST', '/templates', { body, token });

  it('creates, reads, lists, edits and deletes a standard template', async () => {
    const c = await post({ Name: ' Welcome ', Alias: 'Welcome-1', Subject: 'Hi {{name}}', HtmlBody: '<p>{{name}}</p>', TextBody: 'Hi {{name}}' });
    assert.equal(c.status, 200, c.text);
    assert.deepEqual(Object.keys(c.body).sort(), ['Active', 'Alias', 'LayoutTemplate', 'Name', 'TemplateId', 'TemplateType']);
    assert.equal(c.body.Name, 'Welcome');
    assert.equal(c.body.TemplateType, 'Standard');
    const id = c.body.TemplateId;

    const byAlias = await s.request('GET', '/templates/welcome-1');
    assert.equal(byAlias.status, 200);
    assert.equal(byAlias.body.TemplateId, id);
    assert.equal(byAlias.body.Subject, 'Hi {{name}}');
    assert.equal(byAlias.body.AssociatedServerId, s.serverId);

    const edit = await s.request('PUT', `/templates/${id}`, { body: { Subject: 'Hello {{name}}', Alias: null } });
    assert.equal(edit.status, 200, edit.text);
    assert.equal(edit.body.Alias, 'Welcome-1', 'null means not given');
    assert.equal((await s.request('GET', `/templates/${id}`)).body.Subject, 'Hello {{name}}');

    const list = await s.request('GET', '/Templates?Count=10&Offset=0&TemplateType=Standard');
    assert.equal(list.status, 200);
    assert.ok(list.body.Templates.some((t: any) => t.TemplateId === id));

    const del = await s.request('DELETE', `/templates/${id}`);
    assert.deepEqual(del.body, { ErrorCode: 0, Message: `Template ${id} removed.` });
    assert.equal((await s.request('GET', `/templates/${id}`)).body.ErrorCode, 1101);
  });

  it('refuses bad fields with the published codes', async () => {
    const cases: [unknown, number][] = [
      [{ Subject: 's', HtmlBody: 'x' }, 1120],
      [{ Name: 'n', Subject: 's' }, 1120],
      [{ Name: 'n', HtmlBody: 'x' }, 1120],
      [{ Name: 'n', Subject: 's', HtmlBody: '<p>{{#items}}x</p>' }, 1122],
      [{ Name: 'n', Subject: 's'.repeat(2001), HtmlBody: 'x' }, 1121],
      [{ Name: 'n', Subject: 's', HtmlBody: 'x', Alias: '1abc' }, 403],
      [{ Name: 'n', Subject: 's', HtmlBody: 'x', TemplateType: 'Fancy' }, 403],
      [{ Name: 'n', Subject: 's', HtmlBody: 'x', LayoutTemplate: 'nope' }, 1101],
      [{ Name: 'n', Subject: { x: 1 }, HtmlBody: 'x' }, 403],
    ];
    for (const [body, code] of cases) {
      const r = await post(body);
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.ErrorCode, code, `${JSON.stringify(body).slice(0, 80)}: ${r.text}`);
    }
    // Exactly at the limit is fine.
    assert.equal((await post({ Name: 'edge', Subject: 's'.repeat(2000), HtmlBody: 'x' })).status, 200);
    const bad = await post({ Name: 'n', Subject: 's', HtmlBody: 'line\n  {{#items}}x' });
    assert.match(bad.body.Message, /HtmlBody.*never closed.*line 2, position 3/);
  });

  it('keeps aliases unique per server regardless of case, and separate between servers', async () => {
    assert.equal((await post({ Name: 'a', Alias: 'receipt', Subject: 's', TextBody: 't' })).status, 200);
    const dup = await post({ Name: 'b', Alias: 'RECEIPT', Subject: 's', TextBody: 't' });
    assert.equal(dup.body.ErrorCode, 403);
    assert.match(dup.body.Message, /already used/);
    assert.equal((await post({ Name: 'b', Alias: 'receipt', Subject: 's', TextBody: 't' }, other.token)).status, 200);
    // Another server's template is not found through this server's token.
    const mine = await s.request('GET', '/templates/receipt');
    const theirs = await s.request('GET', `/templates/${(await s.request('GET', '/templates/receipt', { token: other.token })).body.TemplateId}`);
    assert.equal(mine.status, 200);
    assert.equal(theirs.body.ErrorCode, 1101);
    assert.equal((await s.request('DELETE', '/templates/receipt', { token: other.token })).status, 200);
    assert.equal((await s.request('GET', '/templates/receipt')).status, 200, 'deleting on the other server leaves this one alone');
  });

  it('handles layouts: one {{{@content}}}, no subject, no deleting while used, no sending type change', async () => {
    const noContent = await post({ Name: 'L', Alias: 'bad-layout', TemplateType: 'Layout', HtmlBody: '<div>{{@content}}</div>' });
    assert.equal(noContent.body.ErrorCode, 1131);
    const twice = await post({ Name: 'L', Alias: 'bad-layout', TemplateType: 'Layout', HtmlBody: '{{{@content}}}{{{@content}}}' });
    assert.equal(twice.body.ErrorCode, 1131);
    const inSection = await post({ Name: 'L', Alias: 'bad-layout', TemplateType: 'Layout', TextBody: '{{#a}}{{{@content}}}{{/a}}' });
    assert.equal(inSection.body.ErrorCode, 1131);
    const subject = await post({ Name: 'L', Alias: 'bad-layout', TemplateType: 'Layout', Subject: 'x', HtmlBody: '{{{@content}}}' });
    assert.equal(subject.body.ErrorCode, 1123);

    const layout = await post({ Name: 'Base', Alias: 'base', TemplateType: 'layout', HtmlBody: layoutHtml, TextBody: '{{{@content}}}\n-- {{company}}' });
    assert.equal(layout.status, 200, layout.text);
    assert.equal(layout.body.TemplateType, 'Layout');
    const std = await post({ Name: 'Uses', Alias: 'uses-base', Subject: 's', HtmlBody: '<p>x</p>', LayoutTemplate: 'BASE' });
    assert.equal(std.status, 200, std.text);
    assert.equal(std.body.LayoutTemplate, 'base');
    const notLayout = await post({ Name: 'x', Subject: 's', HtmlBody: 'x', LayoutTemplate: 'uses-base' });
    assert.equal(notLayout.body.ErrorCode, 1125);

    const filtered = await s.request('GET', '/templates?count=50&layouttemplate=base');
    assert.deepEqual(filtered.body.Templates.map((t: any) => t.Alias), ['uses-base']);
    const layouts = await s.request('GET', '/templates?count=50&templatetype=Layout');
    assert.deepEqual(layouts.body.Templates.map((t: any) => t.Alias), ['base']);

    assert.equal((await s.request('PUT', '/templates/base', { body: { TemplateType: 'Standard' } })).body.ErrorCode, 1125);
    assert.equal((await s.request('DELETE', '/templates/base')).body.ErrorCode, 1130);
    // Renaming the layout's alias carries its users along.
    const renamed = await s.request('PUT', '/templates/base', { body: { Alias: 'base2' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal((await s.request('GET', '/templates/uses-base')).body.LayoutTemplate, 'base2');
    assert.equal((await s.request('PUT', '/templates/uses-base', { body: { LayoutTemplate: '' } })).status, 200);
    assert.equal((await s.request('DELETE', '/templates/base2')).status, 200);
  });

  it('validates parts with positions, renders with the test model and suggests a model', async () => {
    const r = await s.request('POST', '/templates/validate', {
      body: {
        Subject: 'Order {{order.id}}',
        HtmlBody: '<style>p { color: red; }</style><p>{{name}}</p>{{#each items}}<li>{{title}}</li>{{/each}}',
        TextBody: 'Hi {{name}}\n{{#tags}}',
        TestRenderModel: { name: '<Ann>', order: { id: 7 }, items: [{ title: 'A' }, { title: 'B' }] },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.AllContentIsValid, false);
    assert.equal(r.body.Subject.ContentIsValid, true);
    assert.equal(r.body.Subject.RenderedContent, 'Order 7');
    assert.equal(r.body.HtmlBody.RenderedContent, '<p style="color: red;">&lt;Ann&gt;</p><li>A</li><li>B</li>');
    assert.equal(r.body.TextBody.ContentIsValid, false);
    assert.deepEqual(r.body.TextBody.ValidationErrors, [{ Message: "Section 'tags' is never closed", Line: 2, CharacterPosition: 1 }]);
    assert.deepEqual(r.body.SuggestedTemplateModel, { order: { id: 'id_Value' }, name: 'name_Value', items: [{ title: 'title_Value' }] });

    const noInline = await s.request('POST', '/templates/validate', { body: { HtmlBody: '<style>p{color:red}</style><p>x</p>', InlineCssForHtmlTestRender: false } });
    assert.equal(noInline.body.HtmlBody.RenderedContent, '<style>p{color:red}</style><p>x</p>');
    assert.equal(noInline.body.Subject, null);

    const layout = await s.request('POST', '/templates/validate', { body: { TemplateType: 'Layout', HtmlBody: '<div></div>' } });
    assert.equal(layout.body.AllContentIsValid, false);
    assert.match(layout.body.HtmlBody.ValidationErrors[0].Message, /@content/);
    assert.equal((await s.request('POST', '/templates/validate', { body: {} })).body.ErrorCode, 1120);
    assert.equal((await s.request('POST', '/templates/validate', { body: { HtmlBody: 7 } })).body.ErrorCode, 403);
  });

  it('holds at most 100 templates per server (1105)', async () => {
    const existing = await s.ctx.db.selectFrom('templates').select((eb) => eb.fn.countAll<number>().as('n')).where('server_id', '=', other.serverId).executeTakeFirstOrThrow();
    const now = s.clock.now();
    const fill = 99 - Number(existing.n);
    await s.ctx.db
      .insertInto('templates')
      .values(Array.from({ length: fill }, (_, i) => ({ server_id: other.serverId, name: `t${i}`, alias: null, alias_key: null, subject: 's', html_body: 'x', text_body: null, template_type: 'Standard', layout_template: null, created_at: now, updated_at: now })))
      .execute();
    assert.equal((await post({ Name: 'hundredth', Subject: 's', TextBody: 't' }, other.token)).status, 200);
    const over = await post({ Name: 'one too many', Subject: 's', TextBody: 't' }, other.token);
    assert.equal(over.body.ErrorCode, 1105);
    const page = await s.request('GET', '/templates?count=500&offset=90', { token: other.token });
    assert.equal(page.body.TotalCount, 100);
    assert.equal(page.body.Templates.length, 10);
  });

  it('pushes templates between servers of the account by alias', async () => {
    const { serverId: target, token } = await s.ctx.db.transaction().execute((trx) => createServer(trx, { accountId: s.accountId, name: 'Target' }, s.clock.now()));
    await post({ Name: 'Pushed layout', Alias: 'p-layout', TemplateType: 'Layout', HtmlBody: '{{{@content}}}' });
    await post({ Name: 'Pushed', Alias: 'p-std', Subject: 's', HtmlBody: 'x', LayoutTemplate: 'p-layout' });
    const body = { SourceServerID: s.serverId, DestinationServerID: target, PerformChanges: false };
    assert.equal((await s.request('PUT', '/templates/push', { body })).status, 401, 'needs the account token');
    const dry = await s.request('PUT', '/templates/push', { body, accountToken: s.accountToken });
    assert.equal(dry.status, 200, dry.text);
    assert.ok(dry.body.Templates.some((t: any) => t.Alias === 'p-std' && t.Action === 'Create'));
    assert.equal((await s.request('GET', '/templates?count=10', { token })).body.TotalCount, 0, 'a dry run changes nothing');
    const done = await s.request('PUT', '/templates/push', { body: { ...body, PerformChanges: true }, accountToken: s.accountToken });
    assert.equal(done.body.TotalCount, dry.body.TotalCount);
    assert.equal((await s.request('GET', '/templates/p-std', { token })).body.LayoutTemplate, 'p-layout');
    const again = await s.request('PUT', '/templates/push', { body: { ...body, PerformChanges: true }, accountToken: s.accountToken });
    assert.equal(again.body.TotalCount, 0, 'nothing left to change');
    const foreign = await s.request('PUT', '/templates/push', { body: { ...body, DestinationServerID: 999999 }, accountToken: s.accountToken });
    assert.equal(foreign.body.ErrorCode, 601);
  });
});
