import { Type } from 'typebox';

const Flag = Type.Optional(Type.Union([Type.Boolean(), Type.Null()]));
const Trigger = <T extends Record<string, typeof Flag>>(props: T) => Type.Optional(Type.Union([Type.Object(props), Type.Null()]));

/** Trigger keys and options (docs/reference/webhooks.md, "Events and triggers"). */
export const TriggersBody = Type.Optional(
  Type.Union([
    Type.Object({
      Open: Trigger({ Enabled: Flag, PostFirstOpenOnly: Flag }),
      Click: Trigger({ Enabled: Flag }),
      Delivery: Trigger({ Enabled: Flag }),
      Bounce: Trigger({ Enabled: Flag, IncludeContent: Flag }),
      SpamComplaint: Trigger({ Enabled: Flag, IncludeContent: Flag }),
      SubscriptionChange: Trigger({ Enabled: Flag }),
    }),
    Type.Null(),
  ]),
);

const OptStr = (maxLength: number) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

export const WebhookBody = Type.Object({
  Url: OptStr(4096),
  MessageStream: OptStr(100),
  Triggers: TriggersBody,
  HttpAuth: Type.Optional(Type.Union([Type.Object({ Username: OptStr(1000), Password: OptStr(1000) }), Type.Null()])),
  HttpHeaders: Type.Optional(
    Type.Union([Type.Array(Type.Object({ Name: Type.String({ maxLength: 1000 }), Value: Type.String({ maxLength: 10000 }) }), { maxItems: 100 }), Type.Null()]),
  ),
});

export const IdParams = Type.Object({ id: Type.String({ maxLength: 30 }) });

export const ListQuery = Type.Object({ messagestream: Type.Optional(Type.String({ maxLength: 100 })) });

export const DeliveriesQuery = Type.Object({
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
});
