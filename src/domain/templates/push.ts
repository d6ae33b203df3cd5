// PUT /templates/push: copies the templates of one server to another of the same account, matched by
// alias (templates without an alias are not pushed). PerformChanges=false only reports what would change.
// Layouts go first so that the Standard templates using them find them. All or nothing: one transaction.
import type { AppContext } from '../app-context.js';
import { MAX_ROW_ID } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { lockServer } from '../streams/lock-server.js';
import { MAX_TEMPLATES_PER_SERVER } from './fields.js';

export interface PushInput {
  SourceServerID: number;
  DestinationServerID: number;
  PerformChanges: boolean;
}

export async function pushTemplates(ctx: AppContext, accountId: number, input: PushInput) {
  return ctx.db.transaction().execute(async (trx) => {
    // An ID beyond PostgreSQL's int4 can only miss, and must not reach SQL.
    const ids = [input.SourceServerID, input.DestinationServerID].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= MAX_ROW_ID);
    const servers = ids.length ? await trx.selectFrom('servers').select('id').where('account_id', '=', accountId).where('id', 'in', ids).execute() : [];
    const sourceFound = servers.some((s) => s.id === input.SourceServerID);
    const destinationFound = servers.some((s) => s.id === input.DestinationServerID);
    // The hosted service's fixed texts (its official clients' tests match them exactly).
    if (!sourceFound && !destinationFound) throw new ApiError(ErrorCode.ServerNotFound, 'The source and destination servers were not found.');
    if (!destinationFound) throw new ApiError(ErrorCode.ServerNotFound, 'The destination server was not found.');
    if (!sourceFound) throw new ApiError(ErrorCode.ServerNotFound, 'The source server was not found.');
    if (input.SourceServerID === input.DestinationServerID) {
      throw new ApiError(ErrorCode.InvalidRequestFields, 'SourceServerID and DestinationServerID must differ.');
    }
    await lockServer(trx, ctx.database.sql, input.DestinationServerID);
    const source = await trx
      .selectFrom('templates')
      .selectAll()
      .where('server_id', '=', input.SourceServerID)
      .where('alias_key', 'is not', null)
      .execute();
    source.sort((a, b) => (a.template_type === b.template_type ? a.id - b.id : a.template_type === 'Layout' ? -1 : 1));
    const dest = await trx.selectFrom('templates').selectAll().where('server_id', '=', input.DestinationServerID).execute();
    const byAlias = new Map(dest.filter((t) => t.alias_key).map((t) => [t.alias_key!, t]));
    const changes: { Action: 'Create' | 'Edit'; TemplateId: number | null; Alias: string; Name: string; TemplateType: string }[] = [];
    let count = dest.length;
    const now = ctx.clock.now();
    for (const t of source) {
      const existing = byAlias.get(t.alias_key!);
      const same =
        existing &&
        existing.name === t.name &&
        existing.subject === t.subject &&
        existing.html_body === t.html_body &&
        existing.text_body === t.text_body &&
        existing.layout_template === t.layout_template;
      if (same) continue;
      if (existing && existing.template_type !== t.template_type) {
        throw new ApiError(ErrorCode.TemplateTypeMismatch, `The template '${t.alias}' is a ${existing.template_type} on the destination server and a ${t.template_type} on the source.`);
      }
      const fields = {
        name: t.name,
        subject: t.subject,
        html_body: t.html_body,
        text_body: t.text_body,
        layout_template: t.layout_template,
        updated_at: now,
      };
      let id: number | null = existing?.id ?? null;
      if (!existing) {
        count += 1;
        if (count > MAX_TEMPLATES_PER_SERVER) {
          throw new ApiError(ErrorCode.TemplateLimitExceeded, `The destination server would hold more than ${MAX_TEMPLATES_PER_SERVER} templates.`);
        }
      }
      if (input.PerformChanges) {
        if (existing) await trx.updateTable('templates').set(fields).where('id', '=', existing.id).execute();
        else {
          const row = await trx
            .insertInto('templates')
            .values({ ...fields, server_id: input.DestinationServerID, alias: t.alias, alias_key: t.alias_key, template_type: t.template_type, created_at: now })
            .returning('id')
            .executeTakeFirstOrThrow();
          id = row.id;
        }
      }
      changes.push({ Action: existing ? 'Edit' : 'Create', TemplateId: id, Alias: t.alias!, Name: t.name, TemplateType: t.template_type });
    }
    return { TotalCount: changes.length, Templates: changes };
  });
}
