// The features the HTML check looks for, by caniemail.com slug: Mailpit's tables (internal/htmlcheck/config.go)
// as predicates over one tag or one CSS declaration instead of selectors and regular expressions, so that a
// sender's HTML costs one pass. Where Mailpit's selector names a tag that does not exist (`submit`,
// `checkbox`, `radio`) the input type it means is tested.
import type { Declaration } from './css-scan.js';
import type { StartTag } from './html-tokens.js';

type TagTest = (t: StartTag) => boolean;
const tags =
  (...names: string[]): TagTest =>
  (t) =>
    names.includes(t.name);
const type = (t: StartTag) => (t.attrs.get('type') ?? '').trim().toLowerCase();

export const HTML_TESTS: Array<[string, TagTest]> = [
  ['html-object', tags('object', 'embed', 'image', 'pdf')],
  ['html-link', tags('link')],
  ['html-hr', tags('hr')],
  ['html-dialog', tags('dialog')],
  ['html-srcset', (t) => t.attrs.has('srcset')],
  ['html-picture', tags('picture')],
  ['html-svg', tags('svg')],
  ['html-progress', tags('progress')],
  ['html-required', (t) => t.attrs.has('required')],
  ['html-meter', tags('meter')],
  ['html-audio', tags('audio')],
  ['html-form', tags('form')],
  ['html-input-submit', (t) => t.name === 'input' && type(t) === 'submit'],
  ['html-button-reset', (t) => t.name === 'button' && type(t) === 'reset'],
  ['html-button-submit', (t) => (t.name === 'button' || t.name === 'input') && type(t) === 'submit'],
  ['html-base', tags('base')],
  ['html-input-checkbox', (t) => t.name === 'input' && type(t) === 'checkbox'],
  ['html-input-hidden', (t) => type(t) === 'hidden'],
  ['html-input-radio', (t) => t.name === 'input' && type(t) === 'radio'],
  ['html-input-text', (t) => t.name === 'input' && type(t) === 'text'],
  ['html-video', tags('video')],
  ['html-semantics', tags('article', 'aside', 'details', 'figcaption', 'figure', 'footer', 'header', 'main', 'mark', 'nav', 'section', 'summary', 'time')],
  ['html-select', tags('select')],
  ['html-textarea', tags('textarea')],
  ['html-anchor-links', (t) => t.name === 'a' && (t.attrs.get('href') ?? '').startsWith('#')],
  ['html-style', tags('style')],
  ['html-image-maps', (t) => t.name === 'map' || (t.name === 'img' && t.attrs.has('usemap'))],
];

/** An <img src> by its ending (Mailpit: `(?i)\.gif$` ...) or a data: URL. */
const ends =
  (...exts: string[]) =>
  (src: string) => {
    const s = src.trim().toLowerCase();
    return exts.some((e) => s.endsWith(e));
  };
export const IMAGE_TESTS: Array<[string, (src: string) => boolean]> = [
  ['image-apng', ends('.apng')],
  ['image-avif', ends('.avif')],
  ['image-base64', (src) => src.trim().toLowerCase().startsWith('data:image/')],
  ['image-bmp', ends('.bmp')],
  ['image-gif', ends('.gif')],
  ['image-hdr', ends('.hdr')],
  ['image-heif', ends('.heif')],
  ['image-ico', ends('.ico')],
  ['image-mp4', ends('.mp4')],
  ['image-ppm', ends('.ppm')],
  ['image-svg', ends('.svg')],
  ['image-tiff', ends('.tif', '.tiff')],
  ['image-webp', ends('.webp')],
];

/** Styling attributes (bgcolor="...") Mailpit counts as the CSS feature. */
export const STYLE_ATTRIBUTE_TESTS: Array<[string, string]> = [
  ['css-background-color', 'bgcolor'],
  ['css-background', 'background'],
  ['css-border', 'border'],
  ['css-height', 'height'],
  ['css-padding', 'padding'],
  ['css-width', 'width'],
];

type DeclTest = (d: Declaration) => boolean;
const prop =
  (...names: string[]): DeclTest =>
  (d) =>
    names.includes(d.prop);
const firstWord = (v: string) => v.trim().toLowerCase().split(/[\s;]/, 1)[0] ?? '';
/** A CSS function in the value at its start or after a space, comma or parenthesis (`rgb(` but not `xrgb(`). */
const fn =
  (name: string): DeclTest =>
  (d) => {
    const v = d.value.toLowerCase();
    for (let i = v.indexOf(`${name}(`); i >= 0; i = v.indexOf(`${name}(`, i + 1)) if (i === 0 || /[\s,(:]/.test(v[i - 1]!)) return true;
    return false;
  };

const SIMPLE_PROPERTIES = [
  'accent-color', 'align-items', 'aspect-ratio', 'background-blend-mode', 'background-clip', 'background-color', 'background-image',
  'background-origin', 'background-position', 'background-repeat', 'background-size', 'background', 'block-inline-size', 'border-image',
  'border-radius', 'border', 'box-shadow', 'box-sizing', 'caption-side', 'clip-path', 'column-count', 'direction', 'display', 'filter',
  'flex-direction', 'flex-wrap', 'float', 'font-kerning', 'font-weight', 'font', 'gap', 'grid-template', 'height', 'hyphens', 'inline-size',
  'intrinsic-size', 'justify-content', 'letter-spacing', 'line-height', 'list-style-image', 'list-style-position', 'list-style',
  'margin-inline-block', 'margin-inline', 'margin', 'max-block-size', 'max-height', 'max-width', 'min-height', 'min-inline-size', 'min-width',
  'mix-blend-mode', 'object-fit', 'object-position', 'opacity', 'outline-offset', 'outline', 'overflow-wrap', 'overflow',
  'padding-inline-block', 'padding', 'position', 'tab-size', 'table-layout', 'text-align-last', 'text-align', 'text-decoration-color',
  'text-decoration-thickness', 'text-decoration', 'text-emphasis-position', 'text-emphasis', 'text-indent', 'text-overflow', 'text-shadow',
  'text-transform', 'text-underline-offset', 'transform', 'visibility', 'white-space', 'width', 'word-break', 'writing-mode', 'z-index',
];

export const CSS_PROPERTY_TESTS: Array<[string, DeclTest]> = [
  ...SIMPLE_PROPERTIES.map((p): [string, DeclTest] => [`css-${p}`, prop(p)]),
  ['css-border-inline-block-individual', prop('border-inline', 'border-block')],
  ['css-column-layout-properties', prop('column-fill', 'column-gap', 'column-rule', 'column-span', 'column-width', 'columns')],
  ['css-conic-gradient', fn('conic-gradient')],
  ['css-radial-gradient', fn('radial-gradient')],
  ['css-display-flex', (d) => d.prop === 'display' && firstWord(d.value) === 'flex'],
  ['css-display-grid', (d) => d.prop === 'display' && firstWord(d.value).startsWith('grid')],
  ['css-display-none', (d) => d.prop === 'display' && firstWord(d.value).startsWith('none')],
  ['css-important', (d) => d.important],
  ['css-margin-block-start-end', prop('margin-block-start', 'margin-block-end')],
  ['css-margin-inline-start-end', prop('margin-inline-start', 'margin-inline-end')],
  ['css-padding-block-start-end', prop('padding-block-start', 'padding-block-end')],
  ['css-padding-inline-start-end', prop('padding-inline-start', 'padding-inline-end')],
  ['css-rgb', fn('rgb')],
  ['css-rgba', fn('rgba')],
  ['css-scroll-snap', (d) => d.prop.startsWith('scroll-snap')],
  ['css-unit-calc', fn('calc')],
  ['css-variables', (d) => d.prop.startsWith('--') || fn('var')(d)],
];

/** Occurrences of a number with the unit in a value (Mailpit: `\b\d+rem\b`), counted in one pass. */
const unit =
  (u: string) =>
  (d: Declaration): number => {
    const v = d.value.toLowerCase();
    let count = 0;
    for (let i = v.indexOf(u); i >= 0; i = v.indexOf(u, i + u.length)) {
      const before = v.charCodeAt(i - 1);
      const after = v[i + u.length];
      if (before >= 0x30 && before <= 0x39 && (after === undefined || !/[a-z0-9_]/.test(after))) count++;
    }
    return count;
  };
export const CSS_UNIT_TESTS: Array<[string, (d: Declaration) => number]> = [
  ['css-unit-ch', unit('ch')],
  ['css-unit-initial', (d) => (firstWord(d.value) === 'initial' ? 1 : 0)],
  ['css-unit-rem', unit('rem')],
  ['css-unit-vh', unit('vh')],
  ['css-unit-vmax', unit('vmax')],
  ['css-unit-vmin', unit('vmin')],
  ['css-unit-vw', unit('vw')],
];

/** Literals counted in the <style> text: [slug, text, whether the count ignores case]. */
export const CSS_AT_AND_PSEUDO: Array<[string, string, boolean]> = [
  ['css-at-font-face', '@font-face', true],
  ['css-at-import', '@import', true],
  ['css-at-keyframes', '@keyframes', true],
  ['css-at-media', '@media', true],
  ['css-at-supports', '@supports', true],
  ...[
    'active', 'checked', 'first-child', 'first-of-type', 'focus', 'has', 'hover', 'lang(', 'last-child', 'last-of-type', 'link', 'not(',
    'nth-child(', 'nth-last-child(', 'nth-last-of-type(', 'nth-of-type(', 'only-child', 'only-of-type', 'target', 'visited',
  ].map((p): [string, string, boolean] => [`css-pseudo-class-${p.replace('(', '')}`, `:${p}`, false]),
  ['css-pseudo-element-after', ':after', false],
  ['css-pseudo-element-before', ':before', false],
  ['css-pseudo-element-first-letter', '::first-letter', false],
  ['css-pseudo-element-first-line', '::first-line', false],
  ['css-pseudo-element-marker', '::marker', false],
  ['css-pseudo-element-placeholder', '::placeholder', false],
];
