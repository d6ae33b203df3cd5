// Validation of template fields (docs/reference/templates.md; codes 1120-1131 in error-codes.md). Pure: the
// store checks what needs the database (alias uniqueness, the layout a template names, the per-server limit).
import { ApiError, ErrorCode } from '../errors.js';
import { parseTemplate, TemplateError, type TemplateNode } from './parse.js';

export const TEMPLATE_TYPES = ['Standard', 'Layout'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export const MAX_TEMPLATES_PER_SERVER = 100;
export const LIMITS = { Name: 200, Alias: 100, Subject: 2000, HtmlBody: 1_000_000, TextBody: 1_000_000 } as const;

/** Alias: starts with a letter (so it can never be mistaken for a numeric id), then letters, digits, `.`, `-`, `_`. */
const ALIAS = /^[A-Za-z][A-Za-z0-9._-]*$/;

export interface TemplateInput {
  Name?: string | null;
  Alias?: string | null;
  Subject?: string | null;
  HtmlBody?: string | null;
  TextBody?: string | null;
  TemplateType?: string | null;
  LayoutTemplate?: string | null;
}

/** Reads the string fields of a request body: each a string, null or absent (403 otherwise). */
export function readTextFields<K extends string>(body: Record<string, unknown>, keys: readonly K[]): Partial<Record<K, string | null>> {
  const out: Partial<Record<K, string | null>> = {};
  for (const k of keys) {
    const v = body[k];
    if (v === undefined) continue;
    if (v !== null && typeof v !== 'string') throw new ApiError(ErrorCode.InvalidRequestFields, `The field '${k}' must be a string.`);
    out[k] = v;
  }
  return out;
}

export const TEMPLATE_FIELDS = ['Name', 'Alias', 'Subject', 'HtmlBody', 'TextBody', 'TemplateType', 'LayoutTemplate'] as const;

export interface TemplateFields {
  name: string;
  alias: string | null;
  subject: string | null;
  htmlBody: string | null;
  textBody: string | null;
  type: TemplateType;
  layoutTemplate: string | null;
}

/** "" is "not given", as null is: clients send the empty string for an unset choice. */
export function templateType(value: string | null | undefined): TemplateType | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const t = TEMPLATE_TYPES.find((x) => x.toLowerCase() === value.toLowerCase());
  if (!t) throw new ApiError(ErrorCode.InvalidRequestFields, `TemplateType must be one of ${TEMPLATE_TYPES.join(', ')}.`);
  return t;
}

export function checkAlias(alias: string): void {
  if (alias.length > LIMITS.Alias) throw new ApiError(ErrorCode.TemplateFieldTooLarge, `Alias must be at most ${LIMITS.Alias} characters.`);
  if (!ALIAS.test(alias)) {
    throw new ApiError(
      ErrorCode.InvalidRequestFields,
      'Alias must start with a letter and contain only letters, digits, periods, hyphens and underscores.',
    );
  }
}

/** Parses one part; a syntax error is refused with 1122 naming the part, line and position. */
export function parsePart(part: string, source: string): TemplateNode[] {
  try {
    return parseTemplate(source);
  } catch (err) {
    if (err instanceof TemplateError) throw new ApiError(ErrorCode.TemplateInvalidSyntax, `${part}: ${err.message}`);
    throw err;
  }
}

/** How many times a parsed part holds `{{{@content}}}` (a layout needs it exactly once: 1131). */
export function contentPlaceholders(nodes: TemplateNode[]): number {
  let n = 0;
  for (const node of nodes) {
    if (node.kind === 'value' && node.raw && node.path.parts[0] === '@content') n += 1;
    if (node.kind === 'section') n += 1000 * contentPlaceholders(node.children); // inside a section: never valid
  }
  return n;
}

/** Checks a complete set of fields (create, or an edit merged over the stored template). */
export function checkTemplateFields(f: TemplateFields): void {
  if (!f.name.trim()) throw new ApiError(ErrorCode.TemplateFieldRequired, 'Name is required.');
  for (const [field, value] of [
    ['Name', f.name],
    ['Subject', f.subject],
    ['HtmlBody', f.htmlBody],
    ['TextBody', f.textBody],
  ] as const) {
    if (value !== null && value.length > LIMITS[field]) {
      throw new ApiError(ErrorCode.TemplateFieldTooLarge, `${field} must be at most ${LIMITS[field]} characters.`);
    }
  }
  if (f.alias !== null) checkAlias(f.alias);
  if (!f.htmlBody && !f.textBody) throw new ApiError(ErrorCode.TemplateFieldRequired, 'HtmlBody or TextBody is required.');
  if (f.type === 'Standard') {
    if (!f.subject) throw new ApiError(ErrorCode.TemplateFieldRequired, 'Subject is required for a Standard template.');
    if (f.layoutTemplate !== null) checkAlias(f.layoutTemplate);
  } else {
    if (f.subject) throw new ApiError(ErrorCode.TemplateFieldNotAllowed, 'A Layout template has no Subject.');
    if (f.layoutTemplate) throw new ApiError(ErrorCode.TemplateFieldNotAllowed, 'A Layout template cannot itself use a layout.');
  }
  const parsed: [string, string | null][] = [
    ['Subject', f.subject],
    ['HtmlBody', f.htmlBody],
    ['TextBody', f.textBody],
  ];
  for (const [part, source] of parsed) {
    if (!source) continue;
    const nodes = parsePart(part, source);
    if (f.type === 'Layout' && part !== 'Subject' && contentPlaceholders(nodes) !== 1) {
      // The hosted service's text; mailroom also requires the placeholder outside any section.
      throw new ApiError(ErrorCode.LayoutContentPlaceholder, `The layout content placeholder must be present exactly once in the ${part}, outside any section.`);
    }
  }
}
