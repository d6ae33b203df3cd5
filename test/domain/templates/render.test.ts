// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_RENDERED_CHARS, renderTemplate, TemplateError } from '../../../src/domain/templates/render.js';

function syntaxError(source: string): TemplateError {
  try {
    renderTemplate(source, {});
  } catch (err) {
    assert.ok(err instanceof TemplateError, String(err));
    return err;
  }
  assert.fail(`no error for ${JSON.stringify(source)}`);
}

describe('renderTemplate (Mustachio)', () => {
  it('escapes {{name}} for HTML and leaves {{{name}}} and {{&name}} raw', () => {
    const model = { name: `<b>"Tom" & 'Jerry'</b>` };
    assert.equal(renderTemplate('Hi {{name}}!', model), 'Hi &lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;!');
    assert.equal(renderTemplate('Hi {{{name}}}!', model), `Hi <b>"Tom" & 'Jerry'</b>!`);
    assert.equal(renderTemplate('Hi {{& name}}!', model), `Hi <b>"Tom" & 'Jerry'</b>!`);
    assert.equal(renderTemplate('Hi {{ name }}', model, { html: false }), `Hi <b>"Tom" & 'Jerry'</b>`);
  });

  it('follows dotted paths and renders numbers and booleans', () => {
    const model = { user: { name: 'Ann', address: { city: 'Oslo' }, age: 42, admin: false }, list: ['a', 'b'] };
    assert.equal(renderTemplate('{{user.name}} / {{user.address.city}} / {{user.age}} / {{user.admin}}', model), 'Ann / Oslo / 42 / false');
    assert.equal(renderTemplate('{{list.1}}', model), 'b');
  });

  it('renders missing values, nulls and objects as nothing', () => {
    assert.equal(renderTemplate('[{{nope}}][{{a.b.c}}][{{n}}][{{o}}]', { a: { b: null }, n: null, o: { x: 1 } }), '[][][][]');
    assert.equal(renderTemplate('[{{x}}]', null), '[]');
  });

  it('does not reach into prototypes', () => {
    assert.equal(renderTemplate('[{{constructor}}][{{name.length}}][{{__proto__}}]', { name: 'abc' }), '[][][]');
  });

  it('renders sections for truthy values, once with the value as scope', () => {
    const tpl = '{{#user}}Hello {{name}}{{/user}}{{#flag}}!{{/flag}}{{#off}}never{{/off}}{{#empty}}never{{/empty}}';
    assert.equal(renderTemplate(tpl, { user: { name: 'Bo' }, flag: true, off: false, empty: [] }), 'Hello Bo!');
    assert.equal(renderTemplate('{{#n}}[{{.}}]{{/n}}', { n: 7 }), '[7]');
  });

  it('iterates lists in sections and with {{#each}}, with {{.}} for the item', () => {
    const model = { items: [{ name: 'x', qty: 1 }, { name: 'y', qty: 2 }], tags: ['a', '<b>'] };
    assert.equal(renderTemplate('{{#items}}{{name}}={{qty}};{{/items}}', model), 'x=1;y=2;');
    assert.equal(renderTemplate('{{#each items}}{{name}}={{qty}};{{/each}}', model), 'x=1;y=2;');
    assert.equal(renderTemplate('{{#each tags}}[{{.}}]{{/each}}', model), '[a][&lt;b&gt;]');
    assert.equal(renderTemplate('{{#each missing}}x{{/each}}{{#each tags}}{{/each}}', model), '');
  });

  it('renders inverted sections for falsy, missing and empty values', () => {
    const tpl = '{{^items}}none{{/items}}';
    assert.equal(renderTemplate(tpl, { items: [] }), 'none');
    assert.equal(renderTemplate(tpl, {}), 'none');
    assert.equal(renderTemplate(tpl, { items: [1] }), '');
    assert.equal(renderTemplate('{{^ok}}no{{/ok}}', { ok: false }), 'no');
  });

  it('resolves names through enclosing scopes and ../', () => {
    const model = { company: 'ACME', name: 'top', orders: [{ id: 1, lines: [{ sku: 'A' }] }] };
    const tpl = '{{#each orders}}{{#each lines}}{{company}}:{{../id}}:{{sku}}:{{../../name}}{{/each}}{{/each}}';
    assert.equal(renderTemplate(tpl, model), 'ACME:1:A:top');
    // The inner scope wins over the outer one.
    assert.equal(renderTemplate('{{#inner}}{{name}}{{/inner}}', { name: 'outer', inner: { name: 'inner' } }), 'inner');
  });

  it('fills {{{@content}}} with the wrapped body', () => {
    assert.equal(renderTemplate('<main>{{{@content}}}</main>', {}, { content: '<p>x</p>' }), '<main><p>x</p></main>');
  });

  it('ignores comments', () => {
    assert.equal(renderTemplate('a{{! a note }}b', {}), 'ab');
  });

  it('reports syntax errors with line and character position', () => {
    let e = syntaxError('line one\n  {{#items}}x');
    assert.equal(e.line, 2);
    assert.equal(e.position, 3);
    assert.match(e.reason, /never closed/);
    assert.match(e.message, /line 2, position 3/);

    e = syntaxError('ok {{name');
    assert.deepEqual([e.line, e.position], [1, 4]);
    assert.match(e.reason, /Unclosed tag/);

    e = syntaxError('{{#a}}\n{{#b}}{{/a}}{{/b}}');
    assert.deepEqual([e.line, e.position], [2, 7]);
    assert.match(e.reason, /does not match/);

    e = syntaxError('x\ny\n{{/a}}');
    assert.deepEqual([e.line, e.position], [3, 1]);

    assert.match(syntaxError('{{}}').reason, /Empty placeholder/);
    assert.match(syntaxError('{{first name}}').reason, /Invalid placeholder/);
    assert.match(syntaxError('{{a..b}}').reason, /Invalid placeholder name/);
    assert.match(syntaxError('{{{raw}}').reason, /Unclosed tag/);
    assert.match(syntaxError('{{a {{b}}').reason, /Unclosed tag/);
    assert.match(syntaxError('{{#each a b}}{{/each}}').reason, /Invalid section/);
  });

  it('bounds section nesting so hostile templates cannot exhaust the stack', () => {
    const deep = (n: number) => '{{#a}}'.repeat(n) + 'x' + '{{/a}}'.repeat(n);
    assert.equal(renderTemplate(deep(100), { a: true }), 'x');
    const e = syntaxError(deep(101));
    assert.match(e.reason, /nested deeper than 100/);
    assert.equal(e.position, 601);
    assert.match(syntaxError(deep(100_000)).reason, /nested deeper/);
  });

  it('refuses output that grows past the limit instead of exhausting memory', () => {
    const big = 'x'.repeat(1024 * 1024);
    const list = Array.from({ length: 11 }, () => 1);
    assert.equal(renderTemplate('{{#l}}{{big}}{{/l}}', { l: list.slice(0, 10), big }).length, 10 * big.length);
    assert.ok(10 * big.length <= MAX_RENDERED_CHARS);
    assert.throws(() => renderTemplate('{{#l}}{{big}}{{/l}}', { l: list, big }), TemplateError);
  });
});
