// Parser for the Mustachio template language (docs/reference/templates.md, "Template language"). Written here
// rather than taken from mustache.js (no `{{#each}}`, and its errors carry no line/column) or Handlebars (no
// implicit parent-scope lookup, a helper namespace that turns `{{#name}}` typos into runtime "missing helper"
// failures): the language is small, and owning the parser gives exact error positions for POST
// /templates/validate and the AST that SuggestedTemplateModel is built from.

export class TemplateError extends Error {
  /** 1-based line and character position of the offending tag, when known. */
  constructor(
    message: string,
    readonly line?: number,
    readonly position?: number,
  ) {
    super(line === undefined ? message : `${message} (line ${line}, position ${position})`);
    this.name = 'TemplateError';
  }
  /** The message without the position suffix (validate reports line and position separately). */
  get reason(): string {
    const suffix = this.line === undefined ? '' : ` (line ${this.line}, position ${this.position})`;
    return this.message.slice(0, this.message.length - suffix.length);
  }
}

/** A lookup path: `ups` parent scopes (`../`), then dotted `parts`; `[]` parts means `{{.}}`. */
export interface TemplatePath {
  ups: number;
  parts: string[];
  text: string;
}

export type TemplateNode =
  | { kind: 'text'; text: string }
  | { kind: 'value'; path: TemplatePath; raw: boolean }
  | { kind: 'section'; path: TemplatePath; inverted: boolean; each: boolean; children: TemplateNode[] };

interface OpenBlock {
  node: Extract<TemplateNode, { kind: 'section' }>;
  closeName: string;
  line: number;
  position: number;
}

/** Deeper nesting than any real template needs; the bound keeps the recursive renderer off the stack limit. */
export const MAX_NESTING = 100;

const SEGMENT = /^(?:@?[A-Za-z_$][\w$-]*|\d+)$/;

/**
 * Line and position of increasing offsets, walking the source once: the parser asks for every tag in order, and
 * counting lines from the top each time would make a template of many tags cost its size times its tag count.
 */
function positionTracker(source: string): (offset: number) => { line: number; position: number } {
  let line = 1;
  let lineStart = 0;
  let next = source.indexOf('\n'); // the first newline not yet counted (-1: none left)
  return (offset) => {
    while (next !== -1 && next < offset) {
      line += 1;
      lineStart = next + 1;
      next = source.indexOf('\n', next + 1);
    }
    return { line, position: offset - lineStart + 1 };
  };
}

function parsePath(text: string, fail: (msg: string) => never): TemplatePath {
  let rest = text;
  let ups = 0;
  while (rest.startsWith('../')) {
    ups += 1;
    rest = rest.slice(3);
  }
  if (rest === '.' || rest === 'this') return { ups, parts: [], text };
  if (rest === '..') return { ups: ups + 1, parts: [], text };
  const parts = rest.split('.');
  for (const part of parts) {
    if (!SEGMENT.test(part)) fail(`Invalid placeholder name '${text}'`);
  }
  return { ups, parts, text };
}

/** Parses a template; throws TemplateError naming the first syntax error with its line and position. */
export function parseTemplate(source: string): TemplateNode[] {
  const root: TemplateNode[] = [];
  const stack: OpenBlock[] = [];
  const current = (): TemplateNode[] => (stack.length ? stack[stack.length - 1]!.node.children : root);
  const lineAndPosition = positionTracker(source);
  let index = 0;
  while (index < source.length) {
    const open = source.indexOf('{{', index);
    if (open === -1) {
      current().push({ kind: 'text', text: source.slice(index) });
      break;
    }
    if (open > index) current().push({ kind: 'text', text: source.slice(index, open) });
    const at = lineAndPosition(open);
    const fail = (msg: string): never => {
      throw new TemplateError(msg, at.line, at.position);
    };
    const triple = source.startsWith('{{{', open);
    const closer = triple ? '}}}' : '}}';
    const close = source.indexOf(closer, open + closer.length);
    if (close === -1) fail(`Unclosed tag: expected '${closer}'`);
    const inner = source.slice(open + closer.length, close);
    if (inner.includes('{{')) fail(`Unclosed tag: expected '${closer}' before the next '{{'`);
    index = close + closer.length;
    if (triple) {
      const name = inner.trim();
      if (!name) fail('Empty placeholder');
      current().push({ kind: 'value', path: parsePath(name, fail), raw: true });
      continue;
    }
    const sigil = inner.trimStart()[0];
    const body = inner.trim().slice(sigil && '#^/&!'.includes(sigil) ? 1 : 0).trim();
    if (sigil === '!') continue; // {{! comment }}
    if (!body) fail('Empty placeholder');
    if (sigil === '#' || sigil === '^') {
      const each = sigil === '#' && /^each\s/.test(body);
      const name = each ? body.slice(4).trim() : body;
      if (/\s/.test(name)) fail(`Invalid section '${body}'`);
      const node: OpenBlock['node'] = {
        kind: 'section',
        path: parsePath(name, fail),
        inverted: sigil === '^',
        each,
        children: [],
      };
      if (stack.length >= MAX_NESTING) fail(`Sections are nested deeper than ${MAX_NESTING} levels`);
      current().push(node);
      stack.push({ node, closeName: each ? 'each' : name, ...at });
    } else if (sigil === '/') {
      const block = stack.pop();
      if (!block) fail(`Unexpected closing tag '{{/${body}}}' with no open section`);
      if (block!.closeName !== body) {
        fail(`Closing tag '{{/${body}}}' does not match the open section '${block!.closeName}'`);
      }
    } else {
      if (/\s/.test(body)) fail(`Invalid placeholder '${body}'`);
      current().push({ kind: 'value', path: parsePath(body, fail), raw: sigil === '&' });
    }
  }
  const unclosed = stack.pop();
  if (unclosed) {
    throw new TemplateError(`Section '${unclosed.closeName}' is never closed`, unclosed.line, unclosed.position);
  }
  return root;
}
