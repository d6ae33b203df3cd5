// Templates (docs/reference/templates.md). Thin: the rules live in src/domain/templates/.
import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import { accountAuth, serverAuth, type App } from '../../types.js';
import { pushTemplates } from '../../../domain/templates/push.js';
import { createTemplate, deleteTemplate, findTemplate, getTemplate, listTemplates, updateTemplate } from '../../../domain/templates/store.js';
import { readTextFields, TEMPLATE_FIELDS, templateType } from '../../../domain/templates/fields.js';
import { templateRecord, templateSummary } from '../../../domain/templates/template-view.js';
import { validateTemplate } from '../../../domain/templates/validate.js';
import templateSendRoutes from './send-routes.js';
import { ListTemplatesQuery, PushBody, TemplateBody, TemplateParams, TemplateRecord, TemplateSummary, ValidateBody } from './schemas.js';

const base = { tags: ['templates'], security: [{ serverToken: [] }] };
const config = { auth: 'server' } as const;

export default async function templateRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    '/templates',
    { config, schema: { ...base, querystring: ListTemplatesQuery, response: { 200: Type.Object({ TotalCount: Type.Integer(), Templates: Type.Array(TemplateSummary) }) } } },
    async (req) => {
      const { serverId } = serverAuth(req.auth);
      const q = req.query;
      const type = q.templatetype && q.templatetype.toLowerCase() !== 'all' ? templateType(q.templatetype) : undefined;
      let layoutTemplate: string | undefined;
      if (q.layouttemplate) {
        // Layouts are named by alias, matched regardless of case: resolve to the stored spelling.
        const layout = await findTemplate(ctx.db, serverId, q.layouttemplate);
        if (!layout?.alias || layout.template_type !== 'Layout') return { TotalCount: 0, Templates: [] };
        layoutTemplate = layout.alias;
      }
      const { total, rows } = await listTemplates(ctx.db, serverId, { count: q.count, offset: q.offset ?? 0, type, layoutTemplate });
      return { TotalCount: total, Templates: rows.map(templateSummary) };
    },
  );

  app.get(
    '/templates/:id',
    { config, schema: { ...base, params: TemplateParams, response: { 200: TemplateRecord } } },
    async (req) => templateRecord(await getTemplate(ctx.db, serverAuth(req.auth).serverId, req.params.id)),
  );

  app.post(
    '/templates',
    { config, schema: { ...base, body: TemplateBody, response: { 200: TemplateSummary } } },
    async (req) => templateSummary(await createTemplate(ctx, serverAuth(req.auth).serverId, readTextFields(req.body, TEMPLATE_FIELDS))),
  );

  app.put(
    '/templates/:id',
    { config, schema: { ...base, params: TemplateParams, body: TemplateBody, response: { 200: TemplateSummary } } },
    async (req) => templateSummary(await updateTemplate(ctx, serverAuth(req.auth).serverId, req.params.id, readTextFields(req.body, TEMPLATE_FIELDS))),
  );

  app.delete(
    '/templates/:id',
    { config, schema: { ...base, params: TemplateParams } },
    async (req) => {
      const row = await deleteTemplate(ctx, serverAuth(req.auth).serverId, req.params.id);
      return { ErrorCode: 0, Message: `Template ${row.id} removed.` };
    },
  );

  app.post(
    '/templates/validate',
    { config, schema: { ...base, body: ValidateBody } },
    async (req) =>
      validateTemplate(ctx.db, ctx.threads, serverAuth(req.auth).serverId, { ...req.body, ...readTextFields(req.body, ['Subject', 'HtmlBody', 'TextBody', 'TemplateType', 'LayoutTemplate']) }),
  );

  app.put(
    '/templates/push',
    { config: { auth: 'account' }, schema: { tags: ['templates'], security: [{ accountToken: [] }], body: PushBody } },
    async (req) => pushTemplates(ctx, accountAuth(req.auth).accountId, req.body),
  );

  await templateSendRoutes(app, ctx);
}
