// A console form answered with its refusal beside the field it concerns. A page runs the same domain call as
// the API; when that call refuses (an ApiError or ConsoleRefusal below 500), the page renders the form again
// with the values as submitted, the API's own Message under the field it names (or above the form when it
// names none), and status 422, instead of redirecting with a flash at the top of some other page.
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
 * "NameServers". Linear in the message's length: one startsWith per field.
 */
export function byFieldName(fields: Record<string, string>, codes: Record<number, string> = {}): FieldOf {
  const names = Object.keys(fields).sort((a, b) => b.length - a.length);
  return (err) => {
    if (err instanceof ApiError && codes[err.errorCode] !== undefined) return codes[err.errorCode]!;
    const m = err.message;
    for (const name of names) if (m.startsWith(name) && !/[A-Za-z0-9]/.test(m.charAt(name.length))) return fields[name]!;
    return null;
  };
}

const idOf = (field: string) => `error-${field.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** Attributes for a field's input: marked invalid and described by its message when the refusal is its. */
export function invalidAttrs(error: FormError | null | undefined, field: string): Html | '' {
  return error && error.field === field ? html` aria-invalid="true" aria-describedby="${idOf(field)}"` : '';
}

/** The refusal's message, placed right after the field's input, when it concerns this field. */
export function besideField(error: FormError | null | undefined, field: string): Html | '' {
  return error && error.field === field ? html`<p class="error field-error" id="${idOf(field)}" role="alert">${error.message}</p>` : '';
}

/** The refusal's message above the form, when it concerns no one field. */
export function aboveForm(error: FormError | null | undefined): Html | '' {
  return error && error.field === null ? html`<p class="error" role="alert">${error.message}</p>` : '';
}
