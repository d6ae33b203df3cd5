import { Type } from 'typebox';

const Text = Type.Union([Type.String(), Type.Null()]);
// Body fields are typed by src/domain/templates/fields.ts (readTemplateInput): the app's Ajv coerces types, which
// would blur null ("not given") and "" ("remove"), so the schema documents them without coercing.
const Field = Type.Unsafe<string | null>({ description: 'string or null' });

export const TemplateParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const ListTemplatesQuery = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: 500 }),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  templatetype: Type.Optional(Type.String({ maxLength: 20 })),
  layouttemplate: Type.Optional(Type.String({ maxLength: 200 })),
});

// Lengths and rules are checked by src/domain/templates/fields.ts with their published codes (1120-1131).
export const TemplateBody = Type.Object(
  {
    Name: Type.Optional(Field),
    Alias: Type.Optional(Field),
    Subject: Type.Optional(Field),
    HtmlBody: Type.Optional(Field),
    TextBody: Type.Optional(Field),
    TemplateType: Type.Optional(Field),
    LayoutTemplate: Type.Optional(Field),
  },
  { additionalProperties: true },
);

export const ValidateBody = Type.Object(
  {
    Subject: Type.Optional(Field),
    HtmlBody: Type.Optional(Field),
    TextBody: Type.Optional(Field),
    TestRenderModel: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
    TemplateType: Type.Optional(Field),
    LayoutTemplate: Type.Optional(Field),
    InlineCssForHtmlTestRender: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: true },
);

export const PushBody = Type.Object(
  {
    // Any integer: an ID no server has (0 included) is "not found" (601) with the hosted service's texts,
    // not a malformed request.
    SourceServerID: Type.Integer(),
    DestinationServerID: Type.Integer(),
    PerformChanges: Type.Boolean(),
  },
  { additionalProperties: true },
);

export const TemplateSummary = Type.Object({
  TemplateId: Type.Integer(),
  Name: Type.String(),
  Alias: Text,
  TemplateType: Type.String(),
  LayoutTemplate: Text,
  Active: Type.Boolean(),
});

export const TemplateRecord = Type.Object({
  TemplateId: Type.Integer(),
  Name: Type.String(),
  Alias: Text,
  Subject: Text,
  HtmlBody: Text,
  TextBody: Text,
  TemplateType: Type.String(),
  LayoutTemplate: Text,
  Active: Type.Boolean(),
  AssociatedServerId: Type.Integer(),
});
