// A refused form value said beside its field: the domain's ApiError message, as the API words it, under the
// input it is about (the input marked aria-invalid and described by it), with the form re-rendered holding
// what was typed. Which field a message is about is read from how the domain words it (its leading field
// name: "Url ...", "HttpHeaders: ...", "The stream Name ..."), each page giving its own table.
import { ApiError } from '../../../domain/errors.js';
import { html, type Html } from '../html.js';

export type FieldErrors = Record<string, string>;

/**
 * The field a refusal belongs to: the first entry whose text the message starts with (or contains, for a
 * RegExp), else `fallback`. Anything but an ApiError is not a refusal and is thrown on.
 */
export function refusalOf(err: unknown, fields: Array<[string | RegExp, string]>, fallback: string): FieldErrors {
  if (!(err instanceof ApiError)) throw err;
  const m = err.message;
  for (const [match, field] of fields) if (typeof match === 'string' ? m.startsWith(match) : match.test(m)) return { [field]: m };
  return { [fallback]: m };
}

/** The message under a field. */
export function fieldError(errors: FieldErrors | undefined, name: string): Html | string {
  const m = errors?.[name];
  return m ? html`<ul class="field-errors" id="err-${name}" role="alert"><li>${m}</li></ul>` : '';
}

/** The attributes of a field whose value was refused: aria-invalid, and the message as its description. */
export function invalid(errors: FieldErrors | undefined, name: string): Html | string {
  return errors?.[name] ? html` aria-invalid="true" aria-describedby="err-${name}"` : '';
}
