// tier: unit
// The HTML check on fixtures whose unsupported features are known: the slugs found, how often, the support
// figures from the caniemail data, Mailpit's weighted total, and the shape the `mailpit-api` client declares.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { MailpitHTMLCheckResponse } from 'mailpit-api';
import { htmlCheck } from '../../../src/domain/message-checks/html-check.js';
import { markdownToHtml } from '../../../src/domain/message-checks/caniemail-data.js';

const data = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('caniemail/caniemail.json'), 'utf8')) as {
  data: Array<{ slug: string; stats: Record<string, Record<string, Record<string, string>>> }>;
};

/** The support percentages of a feature, counted straight from the data (every client version). */
function expectedScore(slug: string) {
  let y = 0;
  let n = 0;
  let p = 0;
  for (const platforms of Object.values(data.data.find((f) => f.slug === slug)!.stats))
    for (const versions of Object.values(platforms))
      for (const v of Object.values(versions)) {
        if (v === 'y') y++;
        else if (v === 'n') n++;
        else p++;
      }
  const t = y + n + p;
  return { Supported: (y / t) * 100, Partial: (p / t) * 100, Unsupported: (n / t) * 100 };
}

const NEWSLETTER = `<!doctype html><html><head><meta charset="utf-8"><title>Hi</title>
<style>
  .row { display: flex; gap: 8px }
  .grid { display: grid; grid-template: auto / 1fr 1fr }
  a:hover { color: red }
  @media (max-width: 600px) { .row { display: block } }
</style></head>
<body>
  <div class="row"><div class="grid">A</div><div class="grid">B</div></div>
  <video src="https://cdn.example.com/clip.mp4" poster="https://cdn.example.com/p.png"></video>
  <img src="https://cdn.example.com/logo.webp" alt="logo" width="120">
  <p style="border-radius: 4px; color: rgb(0, 0, 0) !important">Text</p>
  <script>alert(1)</script>
</body></html>`;

describe('HTML check', () => {
  const r = htmlCheck(NEWSLETTER);
  const bySlug = new Map(r.Warnings.map((w) => [w.Slug, w]));

  it('finds the known unsupported features: flexbox and grid from the style sheet, <video>, WebP, <script>', () => {
    for (const slug of ['css-display-flex', 'css-display-grid', 'css-gap', 'css-grid-template', 'html-video', 'image-webp', 'html-script', 'html-style', 'css-at-media', 'css-pseudo-class-hover', 'css-border-radius', 'css-rgb', 'css-important', 'css-width', 'html-body']) {
      assert.ok(bySlug.has(slug), `${slug} expected among ${[...bySlug.keys()].join(', ')}`);
    }
    // Not used: no form, no <svg>, no background-image.
    for (const slug of ['html-form', 'html-svg', 'css-background-image', 'css-display-none']) assert.equal(bySlug.has(slug), false, slug);
  });

  it('counts each feature as an inliner would: a rule once per element it applies to', () => {
    assert.equal(bySlug.get('css-display-grid')!.Score.Found, 2, 'two .grid elements');
    assert.equal(bySlug.get('css-display-flex')!.Score.Found, 1);
    assert.equal(bySlug.get('html-video')!.Score.Found, 1);
    assert.equal(bySlug.get('html-script')!.Score.Found, 1);
    assert.equal(bySlug.get('html-script')!.Score.Unsupported, 100);
  });

  it("scores each feature from caniemail's data over every tested client version", () => {
    for (const slug of ['css-display-flex', 'html-video', 'image-webp']) {
      const w = bySlug.get(slug)!;
      const e = expectedScore(slug);
      assert.ok(Math.abs(w.Score.Unsupported - e.Unsupported) < 1e-9, slug);
      assert.ok(Math.abs(w.Score.Partial - e.Partial) < 1e-9, slug);
      assert.ok(Math.abs(w.Score.Supported - e.Supported) < 1e-9, slug);
      assert.equal(w.URL, `https://www.caniemail.com/features/${slug}/`);
      assert.ok(w.Results.length > 5 && w.Results.every((x) => ['yes', 'no', 'partial'].includes(x.Support)), slug);
    }
    // Outlook on Windows does not support flexbox, in every version tested.
    const outlook = bySlug.get('css-display-flex')!.Results.filter((x) => x.Family === 'outlook' && x.Platform === 'windows');
    assert.ok(outlook.length > 0 && outlook.every((x) => x.Support === 'no'));
    assert.match(outlook[0]!.Name, /^Outlook Windows \(\d{4}\)$/);
  });

  it("gives Mailpit's total: 100 less the worst weighted partial and unsupported shares", () => {
    // Nodes: every element but html, head and meta (a full document): title, style, body, 3 div, video, img, p, script.
    assert.equal(r.Total.Nodes, 10);
    let partial = 0;
    let unsupported = 0;
    for (const w of r.Warnings) {
      partial = Math.max(partial, (w.Score.Partial * w.Score.Found) / r.Total.Nodes);
      unsupported = Math.max(unsupported, (w.Score.Unsupported * w.Score.Found) / r.Total.Nodes);
    }
    assert.equal(r.Total.Partial, partial);
    assert.equal(r.Total.Unsupported, unsupported);
    assert.ok(Math.abs(r.Total.Supported - (100 - partial - unsupported)) < 1e-9);
    assert.ok(r.Total.Tests > 150);
    // Worst first.
    const weight = (w: (typeof r.Warnings)[0]) => (w.Score.Unsupported + w.Score.Partial) * w.Score.Found;
    for (let i = 1; i < r.Warnings.length; i++) assert.ok(weight(r.Warnings[i - 1]!) >= weight(r.Warnings[i]!));
    assert.ok(Array.isArray(r.Platforms.windows) && r.Platforms.windows.includes('Outlook'));
  });

  it('has exactly the fields the mailpit-api client declares, with their types', () => {
    const typed: MailpitHTMLCheckResponse = JSON.parse(JSON.stringify(r));
    assert.deepEqual(Object.keys(typed).sort(), ['Platforms', 'Total', 'Warnings']);
    assert.deepEqual(Object.keys(typed.Total).sort(), ['Nodes', 'Partial', 'Supported', 'Tests', 'Unsupported']);
    const w = typed.Warnings.find((x) => x.Slug === 'css-display-flex')!;
    assert.deepEqual(Object.keys(w).sort(), ['Category', 'Description', 'Keywords', 'NotesByNumber', 'Results', 'Score', 'Slug', 'Tags', 'Title', 'URL']);
    assert.deepEqual(Object.keys(w.Results[0]!).sort(), ['Family', 'Name', 'NoteNumber', 'Platform', 'Support', 'Version']);
    assert.deepEqual(Object.keys(w.Score).sort(), ['Found', 'Partial', 'Supported', 'Unsupported']);
    assert.equal(typeof w.Keywords, 'string');
    assert.ok(Array.isArray(w.Tags));
    for (const x of w.Results) if (x.Support === 'partial' && x.NoteNumber) assert.ok(w.NotesByNumber[x.NoteNumber] !== undefined, `note ${x.NoteNumber}`);
  });

  it('reads a fragment without <body> (Mailpit counts the elements inside the body only)', () => {
    const f = htmlCheck('<p style="display:grid">x</p><hr><form><input type="checkbox" required></form>');
    const slugs = f.Warnings.map((w) => w.Slug);
    for (const s of ['css-display-grid', 'html-hr', 'html-form', 'html-input-checkbox', 'html-required']) assert.ok(slugs.includes(s), s);
    assert.equal(slugs.includes('html-body'), false);
    assert.equal(f.Total.Nodes, 4);
  });

  it('renders the data\'s Markdown escaped, with code and links only', () => {
    assert.equal(markdownToHtml('Use `<b>` see [docs](https://x.example/a)'), 'Use <code>&lt;b&gt;</code> see <a href="https://x.example/a" target="_blank">docs</a>');
  });
});
