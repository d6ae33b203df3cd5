// The sending API's shapes, for the OpenAPI document. The body is validated by src/domain/accepting/validate.ts, not
// by these schemas: limits count UTF-16 code units (JSON Schema's maxLength counts code points), `null`
// means "not given", and each batch item must fail on its own instead of failing the whole request.
import { Type } from 'typebox';

const Str = Type.String();
const Opt = <T extends Parameters<typeof Type.Optional>[0]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

export const AttachmentSchema = Type.Object({
  Name: Str,
  Content: Type.String({ description: 'base64' }),
  ContentType: Opt(Str),
  ContentID: Opt(Type.String({ description: 'cid:<id> for inline parts' })),
});

export const OutgoingMessageSchema = Type.Object({
  From: Type.String({ description: 'Address or `Name <address>`; at most 255 UTF-16 units' }),
  To: Type.String({ description: 'Comma-separated addresses' }),
  Cc: Opt(Str),
  Bcc: Opt(Str),
  Subject: Opt(Type.String({ description: 'At most 2000 UTF-16 units' })),
  Tag: Opt(Type.String({ description: 'At most 1000 UTF-16 units' })),
  HtmlBody: Opt(Str),
  TextBody: Opt(Str),
  ReplyTo: Opt(Str),
  Headers: Opt(Type.Array(Type.Object({ Name: Str, Value: Str }))),
  TrackOpens: Opt(Type.Boolean()),
  TrackLinks: Opt(Type.Union([Type.Boolean(), Type.String({ description: 'None | HtmlAndText | HtmlOnly | TextOnly' })])),
  Metadata: Opt(Type.Record(Type.String(), Type.String())),
  TemplateModel: Opt(Type.Object({}, { additionalProperties: true, description: '/email only' })),
  Attachments: Opt(Type.Array(AttachmentSchema)),
  MessageStream: Opt(Type.String({ description: "Stream ID; default 'outbound'" })),
});

export const SendResultSchema = Type.Object({
  To: Type.Optional(Str),
  SubmittedAt: Type.Optional(Str),
  MessageID: Type.Optional(Str),
  ErrorCode: Type.Integer(),
  Message: Str,
});

export const BatchBodySchema = Type.Array(OutgoingMessageSchema, { maxItems: 500 });
export const BatchResultSchema = Type.Array(SendResultSchema);
