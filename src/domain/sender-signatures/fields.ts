// Field rules of sender signatures (docs/reference/sender-signatures.md; codes 503, 520-522).
import { isPublicDomain, normalizeDomainName } from '../domains/names.js';
import { ApiError, ErrorCode } from '../errors.js';

/** Specification, Limits: ConfirmationPersonalNote at most 400 characters. */
export const MAX_PERSONAL_NOTE = 400;
/** Specification, Limits: From at most 255 characters; the same bound serves names and reply-to. */
export const MAX_FIELD = 255;

// Dot-atom local part (RFC 5322 3.4.1, 3.2.3): the form every mailbox provider hands out. Quoted local
// parts are legal but would need quoting in every header we write; they are refused as invalid.
const LOCAL = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;

/** A bare address in its stored form (lowercase, IDN domain as A-label), or ApiError 522. */
export function parseAddress(field: string, input: string): { email: string; domain: string } {
  const a = input.trim();
  const at = a.lastIndexOf('@');
  const local = at > 0 ? a.slice(0, at) : '';
  const domain = at > 0 ? normalizeDomainName(a.slice(at + 1)) : null;
  if (!domain || local.length > 64 || !LOCAL.test(local)) throw new ApiError(ErrorCode.SignatureFieldInvalid, `${field} is not a valid email address.`);
  return { email: `${local.toLowerCase()}@${domain}`, domain };
}

function text(field: string, input: unknown, o: { required?: boolean; max: number }): string | undefined {
  if (input === undefined || input === null) {
    if (o.required) throw new ApiError(ErrorCode.SignatureFieldRequired, `${field} is required.`);
    return undefined;
  }
  if (typeof input !== 'string') throw new ApiError(ErrorCode.SignatureFieldInvalid, `${field} must be a string.`);
  if (o.required && input.trim() === '') throw new ApiError(ErrorCode.SignatureFieldRequired, `${field} is required.`);
  if (input.length > o.max) throw new ApiError(ErrorCode.SignatureFieldTooLong, `${field} must be at most ${o.max} characters.`);
  // Control characters would let a value break out of the header it is written into.
  if (/[\u0000-\u001f\u007f]/.test(input) && field !== 'ConfirmationPersonalNote') {
    throw new ApiError(ErrorCode.SignatureFieldInvalid, `${field} must not contain control characters.`);
  }
  return input;
}

export interface SignatureInput {
  FromEmail?: unknown;
  Name?: unknown;
  ReplyToEmail?: unknown;
  ReturnPathDomain?: unknown;
  ConfirmationPersonalNote?: unknown;
}

export interface ParsedSignature {
  email?: string;
  domain?: string;
  name: string;
  replyTo?: string;
  returnPath?: string;
  note?: string;
}

/** Validates a create (withFrom) or update body. */
export function parseSignatureInput(body: SignatureInput, withFrom: boolean): ParsedSignature {
  const out: ParsedSignature = { name: '' };
  if (withFrom) {
    const from = text('FromEmail', body.FromEmail, { required: true, max: MAX_FIELD })!;
    const { email, domain } = parseAddress('FromEmail', from);
    if (isPublicDomain(domain)) {
      throw new ApiError(ErrorCode.PublicDomainNotAllowed, `Sender signatures at public mailbox providers (${domain}) are not allowed; use a domain you control.`);
    }
    out.email = email;
    out.domain = domain;
  }
  out.name = text('Name', body.Name, { required: true, max: MAX_FIELD })!.trim();
  const replyTo = text('ReplyToEmail', body.ReplyToEmail, { max: MAX_FIELD });
  if (replyTo !== undefined) out.replyTo = replyTo.trim() === '' ? '' : parseAddress('ReplyToEmail', replyTo).email;
  const rp = text('ReturnPathDomain', body.ReturnPathDomain, { max: MAX_FIELD });
  if (rp !== undefined) out.returnPath = rp;
  out.note = text('ConfirmationPersonalNote', body.ConfirmationPersonalNote, { max: MAX_PERSONAL_NOTE });
  return out;
}
