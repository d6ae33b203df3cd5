// Templates of one server: find by id or alias, list, create, edit, delete (docs/reference/templates.md).
// Every query is scoped to the caller's server.
import type { Kysely, Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import type { TemplatesTable } from '../../infra/db/tables/templates-stats.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { lockServer } from '../streams/lock-server.js';
import { checkTemplateFields, MAX_TEMPLATES_PER_SERVER, templateType, type TemplateFields, type TemplateInput } from './fields.js';
import { freeLayoutAlias } from './layout-alias.js';

export type TemplateRow = Selectable<TemplatesTable>;

const blankToNull = (v: string | null | undefined): string | null | undefined => (v === '' ? null : v);

const MAX_TEMPLATE_ID = 2_147_483_647;

export async function findTemplate(db: Kysely<Database>, serverId: number, idOrAlias: string | number): Promise<TemplateRow | undefined> {
  let q = db.selectFrom('templates').selectAll().where('server_id', '=', serverId);
  const key = String(idOrAlias).trim();
  if (/^\d{1,15}$/.test(key)) {
    // Ids are PostgreSQL integer (int4): a larger number names no template and must not reach SQL.
    if (Number(key) > MAX_TEMPLATE_ID) return undefined;
    q = q.where('id', '=', Number(key));
  }
  else q = q.where('alias_key', '=', key.toLowerCase());
  return q.executeTakeFirst();
}

export async function getTemplate(db: Kysely<Database>, serverId: number, idOrAlias: string | number): Promise<TemplateRow> {
  const row = await findTemplate(db, serverId, idOrAlias);
  if (!row) throw new ApiError(ErrorCode.TemplateNotFound, `The template '${idOrAlias}' was not found.`);
  return row;
}

export interface ListQuery {
  count: number;
  offset: number;
  type?: 'Standard' | 'Layout';
  layoutTemplate?: string;
}

export async function listTemplates(db: Kysely<Database>, serverId: number, q: ListQuery) {
  let base = db.selectFrom('templates').where('server_id', '=', serverId);
  if (q.type) base = base.where('template_type', '=', q.type);
  if (q.layoutTemplate) base = base.where('layout_template', '=', q.layoutTemplate);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('id').limit(q.count).offset(q.offset).execute();
  return { total: Number(total.n), rows };
}

/** The layout a Standard template names must be a Layout of the same server. Returns its stored alias. */
async function checkLayout(trx: Kysely<Database>, serverId: number, alias: string): Promise<string> {
  const layout = await findTemplate(trx, serverId, alias);
  if (!layout || layout.alias === null) throw new ApiError(ErrorCode.TemplateNotFound, `The layout template '${alias}' was not found.`);
  if (layout.template_type !== 'Layout') throw new ApiError(ErrorCode.TemplateTypeMismatch, `The template '${alias}' is not a layout.`);
  return layout.alias;
}

function aliasTaken(alias: string): ApiError {
  return new ApiError(ErrorCode.InvalidRequestFields, `The alias '${alias}' is already used by another template on this server.`);
}

export async function createTemplate(ctx: AppContext, serverId: number, input: TemplateInput): Promise<TemplateRow> {
  const f: TemplateFields = {
    name: input.Name ?? '',
    alias: blankToNull(input.Alias) ?? null,
    subject: input.Subject ?? null,
    htmlBody: input.HtmlBody ?? null,
    textBody: input.TextBody ?? null,
    type: templateType(input.TemplateType) ?? 'Standard',
    layoutTemplate: blankToNull(input.LayoutTemplate) ?? null,
  };
  checkTemplateFields(f);
  const now = ctx.clock.now();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await lockServer(trx, ctx.database.sql, serverId);
      const { n } = await trx
        .selectFrom('templates')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('server_id', '=', serverId)
        .executeTakeFirstOrThrow();
      if (Number(n) >= MAX_TEMPLATES_PER_SERVER) {
        throw new ApiError(ErrorCode.TemplateLimitExceeded, `A server holds at most ${MAX_TEMPLATES_PER_SERVER} templates.`);
      }
      if (f.alias && (await findTemplate(trx, serverId, f.alias))) throw aliasTaken(f.alias);
      if (f.type === 'Layout' && f.alias === null) f.alias = await freeLayoutAlias(trx, serverId, f.name);
      const layout = f.layoutTemplate ? await checkLayout(trx, serverId, f.layoutTemplate) : null;
      return trx
        .insertInto('templates')
        .values({
          server_id: serverId,
          name: f.name.trim(),
          alias: f.alias,
          alias_key: f.alias?.toLowerCase() ?? null,
          subject: f.subject,
          html_body: f.htmlBody,
          text_body: f.textBody,
          template_type: f.type,
          layout_template: layout,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (err) {
    if (isUniqueViolation(err) && f.alias) throw aliasTaken(f.alias);
    throw err;
  }
}

export async function updateTemplate(ctx: AppContext, serverId: number, idOrAlias: string, input: TemplateInput): Promise<TemplateRow> {
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await lockServer(trx, ctx.database.sql, serverId);
      const row = await getTemplate(trx, serverId, idOrAlias);
      const type = templateType(input.TemplateType);
      if (type && type !== row.template_type) {
        throw new ApiError(ErrorCode.TemplateTypeMismatch, `The TemplateType of an existing template cannot change (it is ${row.template_type}).`);
      }
      const f: TemplateFields = {
        name: input.Name ?? row.name,
        alias: input.Alias === undefined || input.Alias === null ? row.alias : blankToNull(input.Alias)!,
        subject: input.Subject ?? row.subject,
        htmlBody: input.HtmlBody ?? row.html_body,
        textBody: input.TextBody ?? row.text_body,
        type: row.template_type as TemplateFields['type'],
        layoutTemplate: input.LayoutTemplate === undefined || input.LayoutTemplate === null ? row.layout_template : blankToNull(input.LayoutTemplate)!,
      };
      checkTemplateFields(f);
      const aliasChanged = (f.alias?.toLowerCase() ?? null) !== row.alias_key;
      if (aliasChanged && f.alias) {
        const other = await findTemplate(trx, serverId, f.alias);
        if (other && other.id !== row.id) throw aliasTaken(f.alias);
      }
      if (aliasChanged && row.template_type === 'Layout' && row.alias && !f.alias) {
        // A layout may have no alias (the hosted service accepts one), but its users name it by alias.
        const user = await trx.selectFrom('templates').select('id').where('server_id', '=', serverId).where('layout_template', '=', row.alias).executeTakeFirst();
        if (user) throw new ApiError(ErrorCode.LayoutHasDependents, `The layout '${row.alias}' is used by other templates: its Alias cannot be removed.`);
      }
      if (aliasChanged && row.template_type === 'Layout' && row.alias) {
        // The templates that use this layout follow it to its new alias.
        await trx
          .updateTable('templates')
          .set({ layout_template: f.alias })
          .where('server_id', '=', serverId)
          .where('layout_template', '=', row.alias)
          .execute();
      }
      const layout = f.layoutTemplate ? await checkLayout(trx, serverId, f.layoutTemplate) : null;
      return trx
        .updateTable('templates')
        .set({
          name: f.name.trim(),
          alias: f.alias,
          alias_key: f.alias?.toLowerCase() ?? null,
          subject: f.subject,
          html_body: f.htmlBody,
          text_body: f.textBody,
          layout_template: layout,
          updated_at: ctx.clock.now(),
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (err) {
    if (isUniqueViolation(err) && input.Alias) throw aliasTaken(input.Alias);
    throw err;
  }
}

export async function deleteTemplate(ctx: AppContext, serverId: number, idOrAlias: string): Promise<TemplateRow> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockServer(trx, ctx.database.sql, serverId);
    const row = await getTemplate(trx, serverId, idOrAlias);
    if (row.template_type === 'Layout' && row.alias) {
      const user = await trx
        .selectFrom('templates')
        .select('id')
        .where('server_id', '=', serverId)
        .where('layout_template', '=', row.alias)
        .executeTakeFirst();
      if (user) throw new ApiError(ErrorCode.LayoutHasDependents, `The layout '${row.alias}' is used by other templates and cannot be deleted.`);
    }
    await trx.deleteFrom('templates').where('id', '=', row.id).execute();
    return row;
  });
}
