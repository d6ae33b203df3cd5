// HTML built by a tagged template that escapes every interpolated value unless it is already Html. Every value
// a sender controls (subject, headers, metadata, bodies, file names) reaches a page only through this, so it
// is text, never markup.
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escape(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Value = Html | string | number | boolean | null | undefined | Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escape(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup written by this program (never with outside values in it). */
export const trusted = (text: string): Html => new Html(text);

/** A query string from the non-empty values, for links that keep the current filters. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

// Bidirectional overrides, embeddings and isolates (U+202A-U+202E, U+2066-U+2069): in a name they make
// "gnp.exe" read "exe.png". Escaping leaves them working, so sender-controlled names show them as a visible
// mark instead. The implicit marks (U+200E, U+200F) are kept: right-to-left text uses them legitimately.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** The text with every bidirectional override shown as "[U+202E]" (one pass, linear in its length). */
export function showControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase()}]`);
}
