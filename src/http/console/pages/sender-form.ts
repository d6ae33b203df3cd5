// The fields of a sender signature as POST /senders and PUT /senders/{id} take them (the From address only
// when adding: it cannot change), kept as typed after a refusal, with the API's message beside its field.
import { MAX_FIELD, MAX_PERSONAL_NOTE } from '../../../domain/sender-signatures/fields.js';
import { html, type Html } from '../html.js';
import { besideField, invalidAttrs, textField, type FormError } from '../form-errors.js';

export const SENDER_FIELDS = ['FromEmail', 'Name', 'ReplyToEmail', 'ReturnPathDomain', 'ConfirmationPersonalNote'] as const;
export type SenderValues = Record<(typeof SENDER_FIELDS)[number], string>;

/** The form's values under the API's names ('' for a field left empty: clears it on an edit). */
export function senderValues(body: Record<string, string>): SenderValues {
  const out = {} as SenderValues;
  for (const k of SENDER_FIELDS) out[k] = body[k] ?? '';
  return out;
}

export function senderFields(o: { prefix: string; values: Partial<SenderValues>; refusal?: FormError | null; withFrom: boolean }): Html {
  const v = (k: keyof SenderValues) => o.values[k] ?? '';
  const id = (k: string) => `${o.prefix}-${k}`;
  const note = id('note');
  return html`${o.withFrom ? textField({ id: id('from'), name: 'FromEmail', label: 'From address', type: 'email', value: v('FromEmail'), error: o.refusal, required: true, maxlength: MAX_FIELD }) : ''}
${textField({ id: id('name'), name: 'Name', label: 'Name', value: v('Name'), error: o.refusal, required: true, maxlength: MAX_FIELD, hint: 'Shown to recipients beside the address.' })}
${textField({ id: id('reply'), name: 'ReplyToEmail', label: 'Reply-To address (optional)', type: 'email', value: v('ReplyToEmail'), error: o.refusal, maxlength: MAX_FIELD })}
${textField({ id: id('rp'), name: 'ReturnPathDomain', label: 'Return-Path domain (optional)', value: v('ReturnPathDomain'), error: o.refusal, maxlength: MAX_FIELD, hint: "A subdomain of the address's domain with a CNAME to the bounce domain; empty: the domain's." })}
<label for="${note}">Personal note in the confirmation email (optional)</label>
<textarea id="${note}" name="ConfirmationPersonalNote" rows="2" maxlength="${MAX_PERSONAL_NOTE}"${invalidAttrs(o.refusal, 'ConfirmationPersonalNote', note)}>${v('ConfirmationPersonalNote')}</textarea>
${besideField(o.refusal, 'ConfirmationPersonalNote', note)}`;
}
