import { Type } from 'typebox';
import { RowId } from '../../pagination.js';

export const DmarcDomainParams = Type.Object({ id: RowId() });

/** count (1-100: each report carries its records) and offset, both required as in the API's other lists. */
export const DmarcReportsQuery = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: 100 }),
  offset: Type.Integer({ minimum: 0 }),
});

/** UTC days, YYYY-MM-DD, inclusive; checked in domain/dmarc/query.ts (code 1500). */
export const DmarcSummaryQuery = Type.Object({
  fromdate: Type.Optional(Type.String({ maxLength: 40 })),
  todate: Type.Optional(Type.String({ maxLength: 40 })),
});
