import { Type } from 'typebox';
import { PageQuery, RowId } from '../../pagination.js';

// Field rules (required, lengths, address syntax) are checked in senders/fields.ts so that each answers
// its published code (520-522); the schema only bounds sizes and types.
const Field = Type.Optional(Type.Union([Type.String({ maxLength: 100_000 }), Type.Null()]));

export const SignatureIdParams = Type.Object({ id: RowId() });
export const SignatureListQuery = Type.Object(PageQuery);

export const CreateSignatureBody = Type.Optional(
  Type.Object({ FromEmail: Field, Name: Field, ReplyToEmail: Field, ReturnPathDomain: Field, ConfirmationPersonalNote: Field }),
);
export const UpdateSignatureBody = Type.Optional(
  Type.Object({ Name: Field, ReplyToEmail: Field, ReturnPathDomain: Field, ConfirmationPersonalNote: Field }),
);
