import { Type } from 'typebox';
import { PageQuery } from '../../pagination.js';

const Filter = Type.Optional(Type.String({ maxLength: 1000 }));
const Address = Type.Optional(Type.String({ maxLength: 320 }));

/** GET /messages (query keys arrive lowercased; metadata_<key> keys keep their case and pass through). */
export const MessageSearchQuery = Type.Object({
  ...PageQuery,
  recipient: Address,
  fromemail: Address,
  tag: Filter,
  status: Type.Optional(Type.String({ maxLength: 20 })),
  subject: Filter,
  fromdate: Type.Optional(Type.String({ maxLength: 40 })),
  todate: Type.Optional(Type.String({ maxLength: 40 })),
  messagestream: Type.Optional(Type.String({ maxLength: 100 })),
});

const AgentFilters = {
  client_name: Filter,
  client_company: Filter,
  client_family: Filter,
  os_name: Filter,
  os_company: Filter,
  os_family: Filter,
  platform: Filter,
};

/** GET /messages/opens and /messages/clicks. */
export const HitSearchQuery = Type.Object({
  ...PageQuery,
  recipient: Address,
  tag: Filter,
  messagestream: Type.Optional(Type.String({ maxLength: 100 })),
  ...AgentFilters,
});

/** GET /messages/opens/{id} and /messages/clicks/{id}. */
export const PageOnlyQuery = Type.Object({ ...PageQuery });

export const MessageIdParams = Type.Object({ messageid: Type.String({ minLength: 1, maxLength: 200 }) });
