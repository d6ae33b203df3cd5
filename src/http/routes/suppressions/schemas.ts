import { Type } from 'typebox';
import { MAX_SUPPRESSIONS_PER_CALL } from '../../../domain/suppressions/reasons.js';

export const SuppressionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const DumpQuery = Type.Object({
  suppressionreason: Type.Optional(Type.String({ maxLength: 50 })),
  origin: Type.Optional(Type.String({ maxLength: 50 })),
  fromdate: Type.Optional(Type.String({ maxLength: 50 })),
  todate: Type.Optional(Type.String({ maxLength: 50 })),
  emailaddress: Type.Optional(Type.String({ maxLength: 400 })),
});

// A missing array or one over the limit refuses the whole call (422); a bad item is answered Failed on its
// own, so items are left unchecked here (EmailAddress is named so that its key is read in any case).
export const ChangeBody = Type.Object({
  Suppressions: Type.Array(Type.Union([Type.Object({ EmailAddress: Type.Optional(Type.Unknown()) }, { additionalProperties: true }), Type.Unknown()]), {
    maxItems: MAX_SUPPRESSIONS_PER_CALL,
  }),
});

const Result = Type.Object({ EmailAddress: Type.String(), Status: Type.String(), Message: Type.Union([Type.String(), Type.Null()]) });
export const ChangeResponse = Type.Object({ Suppressions: Type.Array(Result) });

export const DumpResponse = Type.Object({
  Suppressions: Type.Array(
    Type.Object({ EmailAddress: Type.String(), SuppressionReason: Type.String(), Origin: Type.String(), CreatedAt: Type.Union([Type.String(), Type.Null()]) }),
  ),
});
