// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TemplateRow } from '../../../src/domain/templates/store.js';
import { inlineCss } from '../../../src/domain/templates/inline-css.js';
import { parseTemplate } from '../../../src/domain/templates/render.js';
import { renderStoredTemplate } from '../../../src/domain/templates/render-message.js';
import { suggestModel } from '../../../src/domain/templates/suggest-model.js';

/** No inlining here reaches a worker thread (each is under INLINE_ON_LOOP_BELOW, or the body has no <style>). */
const threads = { threads: 1, run: () => Promise.reject(new Error('no worker thread expected')) };

function row(o: Partial<TemplateRow>): TemplateRow {
  return { id: 1, server_id: 1, name: 'n', alias: null, alias_key: null, subject: null, html_body: null, text_body: null, template_type: 'Standard', layout_template: null, active: 1, created_at: 0, updated_at: 0, ...o };
}

describe('layouts, InlineCss and the suggested model', () => {
  it('wraps each body in the matching part of its layout, with the same model', async () => {
    const layout = row({ template_type: 'Layout', html_body: '<main>{{{@content}}}</main><i>{{brand}}</i>', text_body: '{{{@content}}}\n{{brand}}' });
    const t = row({ subject: '{{brand}}: {{title}}', html_body: '<b>{{title}}</b>', text_body: '{{title}}' });
    const out = await renderStoredTemplate(threads, t, layout, { brand: 'A&B', title: '<x>' });
    assert.deepEqual(out, { subject: 'A&B: <x>', htmlBody: '<main><b>&lt;x&gt;</b></main><i>A&amp;B</i>', textBody: '<x>\nA&B' });
    // A part the template lacks stays absent; a part the layout lacks is the content alone.
    const htmlOnly = await renderStoredTemplate(threads, row({ subject: 's', html_body: 'h' }), row({ template_type: 'Layout', text_body: '[{{{@content}}}]' }), {});
    assert.deepEqual(htmlOnly, { subject: 's', htmlBody: 'h', textBody: null });
  });

  it('inlines <style> rules into style attributes and keeps media queries', () => {
    const html = '<html><head><style>p { color: red; } .b { font-weight: bold; } @media (max-width: 600px) { p { color: blue; } }</style></head><body><p class="b">x</p></body></html>';
    const out = inlineCss(html);
    assert.match(out, /<p class="b" style="color: red; font-weight: bold;">x<\/p>/);
    assert.match(out, /@media \(max-width: 600px\)/);
    assert.equal(inlineCss('<p>no styles &amp; untouched</p>'), '<p>no styles &amp; untouched</p>');
  });

  it('suggests a model from the placeholders used', () => {
    const parts = [
      parseTemplate('{{user.name}} {{#company}}{{name}} {{address.city}}{{/company}}'),
      parseTemplate('{{#each items}}{{sku}} {{qty}}{{/each}}{{#each tags}}{{.}}{{/each}}{{^empty}}none{{/empty}}{{{@content}}}'),
    ];
    assert.deepEqual(suggestModel(parts), {
      user: { name: 'name_Value' },
      company: { name: 'name_Value', address: { city: 'city_Value' } },
      items: [{ sku: 'sku_Value', qty: 'qty_Value' }],
      tags: ['tags_Value'],
      empty: false,
    });
  });
});
