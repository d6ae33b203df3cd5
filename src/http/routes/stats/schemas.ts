import { Type } from 'typebox';

export const StatsQuery = Type.Object({
  tag: Type.Optional(Type.String({ maxLength: 1000 })),
  fromdate: Type.Optional(Type.String({ maxLength: 40 })),
  todate: Type.Optional(Type.String({ maxLength: 40 })),
  messagestream: Type.Optional(Type.String({ maxLength: 100 })),
});
