import { Type } from 'typebox';
import { PageQuery } from '../../pagination.js';

const Filter = Type.Optional(Type.String({ maxLength: 1000 }));

/** GET /bounces (query keys arrive lowercased, see http/query.ts). */
export const BounceListQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(Type.String({ maxLength: 40 })),
  inactive: Type.Optional(Type.Boolean()),
  emailfilter: Type.Optional(Type.String({ maxLength: 320 })),
  tag: Filter,
  messageid: Type.Optional(Type.String({ maxLength: 100 })),
  fromdate: Type.Optional(Type.String({ maxLength: 40 })),
  todate: Type.Optional(Type.String({ maxLength: 40 })),
  messagestream: Type.Optional(Type.String({ maxLength: 100 })),
});

export const BounceIdParams = Type.Object({ bounceid: Type.String({ maxLength: 40 }) });
