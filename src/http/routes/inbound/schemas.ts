import { Type } from 'typebox';
import { PageQuery } from '../../pagination.js';

const Filter = Type.Optional(Type.String({ maxLength: 1000 }));
const Address = Type.Optional(Type.String({ maxLength: 320 }));

/** GET /messages/inbound (query keys arrive lowercased, see http/query.ts). */
export const InboundSearchQuery = Type.Object({
  ...PageQuery,
  recipient: Address,
  fromemail: Address,
  tag: Filter,
  subject: Filter,
  mailboxhash: Filter,
  status: Type.Optional(Type.String({ maxLength: 20 })),
  fromdate: Type.Optional(Type.String({ maxLength: 40 })),
  todate: Type.Optional(Type.String({ maxLength: 40 })),
});

export const InboundIdParams = Type.Object({ messageid: Type.String({ maxLength: 100 }) });

export const RulesQuery = Type.Object({ ...PageQuery });

export const RuleBody = Type.Object({ Rule: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])) });

export const RuleIdParams = Type.Object({ id: Type.String({ maxLength: 40 }) });

export const InboundStatsQuery = Type.Object({
  fromdate: Type.Optional(Type.String({ maxLength: 40 })),
  todate: Type.Optional(Type.String({ maxLength: 40 })),
});
