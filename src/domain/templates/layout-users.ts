// Which templates use which layout (a Standard template names its layout by the layout's stored alias), so
// that a layout's page can say whose messages a change to it touches.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

export interface LayoutUser {
  id: number;
  name: string;
}

/** Layout alias -> the templates of the server that name it, by ID. */
export async function layoutUsers(db: Kysely<Database>, serverId: number): Promise<Map<string, LayoutUser[]>> {
  const rows = await db
    .selectFrom('templates')
    .select(['id', 'name', 'layout_template'])
    .where('server_id', '=', serverId)
    .where('layout_template', 'is not', null)
    .orderBy('id')
    .execute();
  const out = new Map<string, LayoutUser[]>();
  for (const r of rows) {
    const list = out.get(r.layout_template!) ?? [];
    list.push({ id: r.id, name: r.name });
    out.set(r.layout_template!, list);
  }
  return out;
}
