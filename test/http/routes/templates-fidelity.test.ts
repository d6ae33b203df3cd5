// Template behaviours the hosted service's clients rely on: a layout without an Alias is accepted and given
// one (the PHP client's suite names it as another template's LayoutTemplate), the layout placeholder refusal and template push refusals use the hosted service's texts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';

describe('templates: fidelity to the hosted service', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  const post = (body: unknown) => s.request('POST', '/templates', { body });

  it('accepts a layout without an Alias and gives it one that templates can name', async () => {
    const r = await post({ Name: 'No alias', TemplateType: 'Layout', HtmlBody: '<b>{{{@content}}}</b>', TextBody: '{{{@content}}}' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.Alias, 'no-alias');
    assert.equal(r.body.TemplateType, 'Layout');
    const read = await s.request('GET', `/templates/${r.body.TemplateId}`);
    assert.equal(read.body.HtmlBody, '<b>{{{@content}}}</b>');
    const again = await post({ Name: 'No alias', TemplateType: 'Layout', HtmlBody: '{{{@content}}}' });
    assert.equal(again.body.Alias, 'no-alias-2');
    const odd = await post({ Name: '2024 — Ünïcode layout!', TemplateType: 'Layout', HtmlBody: '{{{@content}}}' });
    assert.equal(odd.body.Alias, 'layout-2024-n-code-layout');
    const user = await post({ Name: 'User', Subject: 's', HtmlBody: 'x', LayoutTemplate: r.body.Alias });
    assert.equal(user.status, 200, user.text);
    assert.equal(user.body.LayoutTemplate, 'no-alias');
  });

  it('leaves a Standard template without an Alias as it is', async () => {
    const r = await post({ Name: 'Plain', Subject: 's', HtmlBody: 'x' });
    assert.equal(r.body.Alias, null);
  });

  it('refuses a layout edit without the placeholder with 1131 and the hosted service text', async () => {
    const c = await post({ Name: 'L', Alias: 'fid-layout', TemplateType: 'Layout', HtmlBody: '{{{@content}}}' });
    const r = await s.request('PUT', `/templates/${c.body.TemplateId}`, { body: { HtmlBody: 'Html content' } });
    assert.equal(r.status, 422);
    assert.equal(r.body.ErrorCode, 1131);
    assert.match(r.body.Message, /^The layout content placeholder must be present exactly once in the HtmlBody/);
  });

  it('keeps the alias of a layout in use (its users name it by alias)', async () => {
    await post({ Name: 'Base', Alias: 'fid-base', TemplateType: 'Layout', HtmlBody: '{{{@content}}}' });
    await post({ Name: 'User', Alias: 'fid-user', Subject: 's', HtmlBody: 'x', LayoutTemplate: 'fid-base' });
    const r = await s.request('PUT', '/templates/fid-base', { body: { Alias: '' } });
    assert.equal(r.body.ErrorCode, 1130);
    assert.equal((await s.request('GET', '/templates/fid-user')).body.LayoutTemplate, 'fid-base');
  });

  it('answers template push with the fixed texts for missing servers, ID 0 included', async () => {
    const push = (SourceServerID: number, DestinationServerID: number) =>
      s.request('PUT', '/templates/push', { body: { SourceServerID, DestinationServerID, PerformChanges: false }, accountToken: s.accountToken });
    const cases: Array<[number, number, string]> = [
      [0, 0, 'The source and destination servers were not found.'],
      [0, 999999, 'The source and destination servers were not found.'],
      [s.serverId, 0, 'The destination server was not found.'],
      [s.serverId, 999999, 'The destination server was not found.'],
      [0, s.serverId, 'The source server was not found.'],
      [-1, s.serverId, 'The source server was not found.'],
      [s.serverId, 4294967297, 'The destination server was not found.'],
    ];
    for (const [src, dst, text] of cases) {
      const r = await push(src, dst);
      assert.equal(r.status, 422, `${src} -> ${dst}: ${r.text}`);
      assert.equal(r.body.ErrorCode, 601);
      assert.equal(r.body.Message, text, `${src} -> ${dst}`);
    }
  });
});
