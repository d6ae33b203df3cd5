// A small XML reader for DMARC aggregate reports (RFC 7489 appendix C), written for input a stranger
// controls. One pass over the text with indexOf and single-character steps: time and memory are linear in
// the input, and nothing can make it expand. No DTD is read at all: a DOCTYPE (which is where entities are
// declared: the "billion laughs" expansion) or any other `<!` declaration refuses the document, and only the
// five predefined entities and numeric character references are decoded (XML 1.0 4.6, 4.1). Attributes are
// skipped (the report format has none that matter; xmlns is one), and a namespace prefix is dropped from
// element names, since reporters differ in how they qualify the elements.
//
// Elements are handed to the caller as a small tree; `onClose` may take a finished element away (the report
// reader turns each <record> into a row and drops its nodes), so that a large report is never held whole.

export class XmlError extends Error {}

export interface XmlNode {
  name: string;
  text: string;
  children: XmlNode[];
}

export interface XmlLimits {
  /** Deepest nesting allowed (the report format needs 5). */
  maxDepth: number;
  /** Most elements in the document. */
  maxElements: number;
  /** Longest text of one element, in characters. */
  maxText: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = { maxDepth: 16, maxElements: 5_000_000, maxText: 64 * 1024 };

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the entity and character references of a text run; one pass. */
function decode(s: string): string {
  if (s.indexOf('&') < 0) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const amp = s.indexOf('&', i);
    if (amp < 0) {
      out += s.slice(i);
      break;
    }
    out += s.slice(i, amp);
    // A reference is at most a few characters: look no further than 12, so that a text of many '&' without
    // ';' costs a few steps per '&' (an indexOf would scan to the end each time: quadratic).
    let semi = -1;
    for (let k = amp + 1; k < s.length && k <= amp + 12; k++) {
      if (s.charCodeAt(k) === 0x3b) {
        semi = k;
        break;
      }
    }
    if (semi < 0) throw new XmlError(`a bare '&' in text at ${amp}`);
    const ref = s.slice(amp + 1, semi);
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff || !/^#(x[0-9a-f]+|[0-9]+)$/i.test(ref)) throw new XmlError(`a malformed character reference &${ref};`);
      out += String.fromCodePoint(code);
    } else {
      const v = PREDEFINED[ref];
      if (v === undefined) throw new XmlError(`an undeclared entity &${ref}; (entities are not read)`);
      out += v;
    }
    i = semi + 1;
  }
  return out;
}

const isNameEnd = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2f /* / */ || c === 0x3e; /* > */

function isBlank(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

/** The local name: a namespace prefix ("dmarc:record") is dropped. */
function localName(qname: string): string {
  const colon = qname.lastIndexOf(':');
  return colon >= 0 ? qname.slice(colon + 1) : qname;
}

/** Index of the '>' closing a start tag that begins at `from`, quotes in attribute values respected. */
function tagEnd(s: string, from: number): number {
  let quote = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i;
    else if (c === 0x3c) throw new XmlError(`'<' inside a tag at ${i}`);
  }
  throw new XmlError('a tag is not closed');
}

/**
 * Reads the document and returns its root element. `onClose(node, parentPath)` is called for each finished
 * element below the root; returning true drops it from its parent.
 */
export function readXml(text: string, onClose?: (node: XmlNode, depth: number) => boolean, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlNode {
  let s = text;
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  const stack: XmlNode[] = [];
  let root: XmlNode | null = null;
  let elements = 0;
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    const end = lt < 0 ? s.length : lt;
    // Whitespace between elements is dropped, so a container of many records holds no text.
    if (end > i && !isBlank(s, i, end)) {
      const top = stack[stack.length - 1];
      if (!top) throw new XmlError('text outside the root element');
      if (top.text.length + end - i > limits.maxText) throw new XmlError(`the text of <${top.name}> is longer than ${limits.maxText} characters`);
      top.text += decode(s.slice(i, end));
    }
    if (lt < 0) break;
    const next = s.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      const close = s.indexOf('?>', lt + 2);
      if (close < 0) throw new XmlError('a processing instruction is not closed');
      i = close + 2;
    } else if (next === 0x21 /* ! */) {
      if (s.startsWith('<!--', lt)) {
        const close = s.indexOf('-->', lt + 4);
        if (close < 0) throw new XmlError('a comment is not closed');
        i = close + 3;
      } else if (s.startsWith('<![CDATA[', lt)) {
        const close = s.indexOf(']]>', lt + 9);
        if (close < 0) throw new XmlError('a CDATA section is not closed');
        const top = stack[stack.length - 1];
        if (!top) throw new XmlError('CDATA outside the root element');
        if (top.text.length + close - lt > limits.maxText) throw new XmlError(`the text of <${top.name}> is longer than ${limits.maxText} characters`);
        top.text += s.slice(lt + 9, close);
        i = close + 3;
      } else {
        // <!DOCTYPE, <!ENTITY, <!ELEMENT...: a DTD may declare entities; none is read.
        throw new XmlError('a DOCTYPE or other declaration is not allowed (no DTD and no entities are read)');
      }
    } else if (next === 0x2f /* / */) {
      const close = s.indexOf('>', lt + 2);
      if (close < 0) throw new XmlError('an end tag is not closed');
      const name = localName(s.slice(lt + 2, close).trim());
      const node = stack.pop();
      if (!node || node.name !== name) throw new XmlError(`</${name.slice(0, 64)}> does not close ${node ? `<${node.name}>` : 'any element'}`);
      node.text = node.text.trim();
      finish(node);
      i = close + 1;
    } else {
      let j = lt + 1;
      while (j < s.length && !isNameEnd(s.charCodeAt(j))) j++;
      if (j === lt + 1) throw new XmlError(`a '<' that starts no tag at ${lt}`);
      const name = localName(s.slice(lt + 1, j));
      if (name.length === 0 || name.length > 128) throw new XmlError(`an element name of ${name.length} characters`);
      const close = tagEnd(s, j);
      const selfClosing = s.charCodeAt(close - 1) === 0x2f;
      if (++elements > limits.maxElements) throw new XmlError(`more than ${limits.maxElements} elements`);
      if (stack.length >= limits.maxDepth) throw new XmlError(`elements nested deeper than ${limits.maxDepth}`);
      const node: XmlNode = { name, text: '', children: [] };
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(node);
      else if (root) throw new XmlError('a second root element');
      else root = node;
      if (selfClosing) finish(node);
      else stack.push(node);
      i = close + 1;
    }
  }
  if (stack.length) throw new XmlError(`<${stack[stack.length - 1].name}> is not closed`);
  if (!root) throw new XmlError('no root element');
  return root;

  function finish(node: XmlNode): void {
    const parent = stack[stack.length - 1];
    if (parent && onClose && onClose(node, stack.length)) parent.children.pop();
  }
}

/** The first child named `name`. */
export const child = (n: XmlNode | undefined, name: string): XmlNode | undefined => n?.children.find((c) => c.name === name);
/** Every child named `name`. */
export const children = (n: XmlNode | undefined, name: string): XmlNode[] => (n ? n.children.filter((c) => c.name === name) : []);
/** The text of the first child named `name`, or ''. */
export const textOf = (n: XmlNode | undefined, name: string): string => child(n, name)?.text ?? '';
