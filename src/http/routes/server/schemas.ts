import { Type } from 'typebox';

const Str = Type.String({ maxLength: 2048 });

/** Writable server fields (docs/reference/servers.md); shared with the account's /servers API. */
export const ServerSettingsFields = {
  Name: Type.Optional(Str),
  Color: Type.Optional(Str),
  SmtpApiActivated: Type.Optional(Type.Boolean()),
  RawEmailEnabled: Type.Optional(Type.Boolean()),
  InboundHookUrl: Type.Optional(Str),
  BounceHookUrl: Type.Optional(Str),
  OpenHookUrl: Type.Optional(Str),
  DeliveryHookUrl: Type.Optional(Str),
  ClickHookUrl: Type.Optional(Str),
  SpamComplaintHookUrl: Type.Optional(Str),
  PostFirstOpenOnly: Type.Optional(Type.Boolean()),
  InboundDomain: Type.Optional(Str),
  InboundSpamThreshold: Type.Optional(Type.Integer()),
  TrackOpens: Type.Optional(Type.Boolean()),
  TrackLinks: Type.Optional(Str),
  IncludeBounceContentInHook: Type.Optional(Type.Boolean()),
  EnableSmtpApiErrorHooks: Type.Optional(Type.Boolean()),
  RetentionDays: Type.Optional(Type.Integer()),
  IpPool: Type.Optional(
    Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'mailroom extension: name of an IP pool of MAILROOM_IP_POOLS the server\'s mail leaves from; "" for none. Unknown name: 422, ErrorCode 403.',
    }),
  ),
  SandboxAcceptsAnyFrom: Type.Optional(
    Type.Boolean({ description: 'mailroom extension: a Sandbox server takes mail from any From address, no sender signature needed (nothing it takes is sent). Default false.' }),
  ),
};

export const ServerSettingsBody = Type.Optional(Type.Object(ServerSettingsFields));
