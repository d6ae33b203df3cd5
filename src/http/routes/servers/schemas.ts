import { Type } from 'typebox';
import { RowId } from '../../pagination.js';
import { ServerSettingsFields } from '../server/schemas.js';

export const ServerParams = Type.Object({ id: RowId() });

export const ListServersQuery = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: 500 }),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  name: Type.Optional(Type.String({ maxLength: 255 })),
});

/** POST /servers and PUT /servers/{id}: the writable settings plus DeliveryType (fixed at creation). */
export const ServerBody = Type.Object({ ...ServerSettingsFields, DeliveryType: Type.Optional(Type.String({ maxLength: 20 })) });
