// A console form answered with its refusal beside the field it concerns. A page runs the same domain call as
// the API; when that call refuses (an ApiError or ConsoleRefusal below 500), the page renders the form again
// with status 422 and the values as typed, the API's own Message under the field it names (the input marked
// aria-invalid, described by the message and focused, so a keyboard or screen-reader user lands on it), or
// above the form when it names none. One markup for every page: <p class="field-error" id="<input id>-error">.
import { ApiError, httpStatusFor } from '../../domain/errors.js';
import { ConsoleRefusal } from './guard.js';
import { html, type Html } from './html.js';

/** A refusal as a form shows it: `field` is a form field's name, or null for the form as a whole. */
export interface FormError {
  field: string | null;
  message: string;
}

/** Which form field a refusal concerns; null when it concerns none in particular. */
export type FieldOf = (err: ApiError | ConsoleRefusal) => string | null;

/**
 * The refusal in `err` as a FormError; anything else (a fault, a 5xx, a "signed out") is thrown again for
 * the console's error handler.
 */
export function formError(err: unknown, fieldOf: FieldOf): FormError {
  const status = err instanceof ApiError ? (err.status ?? httpStatusFor(err.errorCode)) : err instanceof ConsoleRefusal ? err.status : 500;
  if (status >= 500 || status === 401 || status === 403 || !(err instanceof ApiError || err instanceof ConsoleRefusal)) throw err;
  return { field: fieldOf(err), message: err.message };
}

/**
 * A FieldOf for messages that begin with the API's field name ("RetentionDays must be ...", "BounceHookUrl:
 * ..."), the domain's habit, plus ErrorCodes that belong to one field whatever they say. `fields` maps API
 * field names to the form's names. A prefix must end where the name does, so "Name" does not claim
 * "NameServers". `fallback` is the field a message naming none is put under (null: above the form).
 * Linear in the message's length: one startsWith per field.
 */
export function byFieldName(fields: Record<string, string>, codes: Record<number, string> = {}, fallback: string | null = null): FieldOf {
  const names = Object.keys(fields).sort((a, b) => b.length - a.length);
  return (err) => {
    if (err instanceof ApiError && codes[err.errorCode] !== undefined) return codes[err.errorCode]!;
    const m = err.message;
    for (const name of names) if (m.startsWith(name) && !/[A-Za-z0-9]/.test(m.charAt(name.length))) return fields[name]!;
    return fallback;
  };
}

/**
 * A FieldOf for messages whose wording is not a bare field name ("The stream Name ...", "Put credentials
 * ..."): the first rule whose text the message starts with (or whose RegExp it matches) names the field,
 * else `fallback`. The RegExps are the pages' own constants, none with nested repetition.
 */
export function byPrefix(rules: ReadonlyArray<readonly [string | RegExp, string]>, fallback: string | null): FieldOf {
  return (err) => {
    const m = err.message;
    for (const [match, field] of rules) if (typeof match === 'string' ? m.startsWith(match) : match.test(m)) return field;
    return fallback;
  };
}

const about = (error: FormError | null | undefined, field: string): error is FormError => !!error && error.field === field;

/** The id of a field's message: its input's id (the field's name when the input has no other) + "-error". */
const errorId = (id: string) => `${id.replace(/[^A-Za-z0-9_-]/g, '_')}-error`;

/**
 * Attributes for a field's input when the refusal is its: marked invalid, focused (so the browser lands on
 * it), and described by its message. `id` is the input's id, when it is not the field's name.
 */
export function invalidAttrs(error: FormError | null | undefined, field: string, id: string = field): Html | '' {
  return about(error, field) ? html` aria-invalid="true" autofocus aria-describedby="${errorId(id)}"` : '';
}

/** The refusal's message, placed right after the field's input, when it concerns this field. */
export function besideField(error: FormError | null | undefined, field: string, id: string = field): Html | '' {
  return about(error, field) ? html`<p class="field-error" id="${errorId(id)}" role="alert">${error.message}</p>` : '';
}

/** The refusal's message above the form, when it concerns no one field. */
export function aboveForm(error: FormError | null | undefined): Html | '' {
  return error && error.field === null ? html`<p class="error" role="alert">${error.message}</p>` : '';
}

export interface TextField {
  id: string;
  name: string;
  label: string;
  /** What was typed (kept after a refusal) or what is stored. */
  value: string;
  error?: FormError | null;
  type?: string;
  required?: boolean;
  hint?: string;
  maxlength?: number;
}

/** One labelled text input with its hint and, when refused, the API's message beside it. */
export function textField(o: TextField): Html {
  const refused = about(o.error, o.name);
  const hintId = `${o.id}-hint`;
  const described = [o.hint ? hintId : '', refused ? errorId(o.id) : ''].filter(Boolean).join(' ');
  return html`<label for="${o.id}">${o.label}</label>
<input id="${o.id}" name="${o.name}" type="${o.type ?? 'text'}" value="${o.value}"${o.required ? html` required` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${refused ? html` aria-invalid="true" autofocus` : ''}${described ? html` aria-describedby="${described}"` : ''}>
${o.hint ? html`<span class="muted small" id="${hintId}">${o.hint}</span>` : ''}${besideField(o.error, o.name, o.id)}`;
}

/** A FieldOf for a form whose fields carry the API's own names: the one the message begins with, else `fallback`. */
export const apiNamed = (names: readonly string[], fallback: string | null): FieldOf => byFieldName(Object.fromEntries(names.map((n) => [n, n])), {}, fallback);
