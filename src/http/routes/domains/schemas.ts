import { Type } from 'typebox';
import { PageQuery, RowId } from '../../pagination.js';

const Host = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);

export const DomainIdParams = Type.Object({ id: RowId() });
export const DomainListQuery = Type.Object(PageQuery);

/** POST /domains. Name is checked in code so that its absence answers 514, not a schema error. */
export const CreateDomainBody = Type.Optional(
  Type.Object({
    Name: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
    ReturnPathDomain: Type.Optional(Host),
  }),
);

/** PUT /domains/{id}; CustomTrackingDomain is mailroom's own: '' clears it, null leaves it. */
export const UpdateDomainBody = Type.Optional(Type.Object({ ReturnPathDomain: Type.Optional(Host), CustomTrackingDomain: Type.Optional(Host) }));
