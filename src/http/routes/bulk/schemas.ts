// The Bulk API's request, for the OpenAPI document and for reading its keys in any case (http/body-keys.ts).
// The body is validated by the domain (src/domain/bulk/validate.ts), entry by entry, naming the bad one.
import { Type } from 'typebox';
import { AttachmentSchema, OutgoingMessageSchema } from '../email/schemas.js';

const Opt = <T extends Parameters<typeof Type.Optional>[0]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const Header = Type.Object({ Name: Type.String(), Value: Type.String() });
const m = OutgoingMessageSchema.properties;

export const BulkEntrySchema = Type.Object(
  {
    To: Type.String(),
    Cc: m.Cc,
    Bcc: m.Bcc,
    TemplateModel: Opt(Type.Object({}, { additionalProperties: true })),
    Metadata: m.Metadata,
    Headers: Opt(Type.Array(Header)),
  },
  { additionalProperties: true },
);

export const BulkBodySchema = Type.Object(
  {
    From: Type.String(),
    Subject: m.Subject,
    HtmlBody: m.HtmlBody,
    TextBody: m.TextBody,
    TemplateId: Opt(Type.Integer()),
    TemplateAlias: Opt(Type.String()),
    InlineCss: Opt(Type.Boolean()),
    ReplyTo: m.ReplyTo,
    Tag: m.Tag,
    Headers: Opt(Type.Array(Header)),
    TrackOpens: m.TrackOpens,
    TrackLinks: m.TrackLinks,
    Metadata: m.Metadata,
    Attachments: Opt(Type.Array(AttachmentSchema)),
    MessageStream: m.MessageStream,
    Messages: Type.Array(BulkEntrySchema),
  },
  { additionalProperties: true },
);
