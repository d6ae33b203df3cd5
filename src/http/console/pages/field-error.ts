// A value the domain code refused, shown beside the field it concerns: the API's own Message, so the console
// and the API say the same thing. The field is the one the Message names first (the domain's messages start
// with the API field name, "ReturnPathDomain must be ..."), else the form's main field.
import { ApiError, httpStatusFor } from '../../../domain/errors.js';
import { html, type Html } from '../html.js';

export interface FieldRefusal {
  field: string;
  message: string;
  status: number;
}

/** The refusal of `err` placed on one of `fields`, or null when `err` is not a refused value (it propagates). */
export function fieldRefusal(err: unknown, fields: readonly string[], fallback: string): FieldRefusal | null {
  if (!(err instanceof ApiError)) return null;
  const status = err.status ?? httpStatusFor(err.errorCode);
  // Not found, rate limits and server faults are not about a value typed in a field.
  if (status !== 422 && status !== 400) return null;
  const field = fields.find((f) => err.message.startsWith(f)) ?? fallback;
  return { field, message: err.message, status };
}

/** Whether the refusal is about this field. */
const about = (r: FieldRefusal | null | undefined, field: string) => r?.field === field;

/** The message beside the field, when the refusal is about it. */
export function fieldError(r: FieldRefusal | null | undefined, field: string, id: string): Html {
  return about(r, field) ? html`<p class="field-error" id="${id}-error" role="alert">${r!.message}</p>` : html``;
}

/** An input's aria attributes: invalid, focused and described by its message when refused, else by its hint. */
export function describedBy(r: FieldRefusal | null | undefined, field: string, id: string, hint = false): Html {
  const ids = [hint ? `${id}-hint` : '', about(r, field) ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`${about(r, field) ? html` aria-invalid="true" autofocus` : ''}${ids ? html` aria-describedby="${ids}"` : ''}`;
}

export interface TextField {
  id: string;
  name: string;
  label: string;
  /** What was typed (kept after a refusal) or what is stored. */
  value: string;
  refusal?: FieldRefusal | null;
  type?: string;
  required?: boolean;
  hint?: string;
  maxlength?: number;
}

/** One labelled text input with its hint and, when refused, the API's message beside it. */
export function textField(o: TextField): Html {
  return html`<label for="${o.id}">${o.label}</label>
<input id="${o.id}" name="${o.name}" type="${o.type ?? 'text'}" value="${o.value}"${o.required ? html` required` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${describedBy(o.refusal, o.name, o.id, !!o.hint)}>
${o.hint ? html`<span class="muted small" id="${o.id}-hint">${o.hint}</span>` : ''}${fieldError(o.refusal, o.name, o.id)}`;
}
