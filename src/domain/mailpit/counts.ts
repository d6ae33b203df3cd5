// A Sandbox inbox's figures as Mailpit's lists show them (total, unread, the tags in use with their counts),
// read from the rows migration 0038's triggers keep on every write, not counted per request: a list costs the
// same at a million messages as at ten. A Live server's messages (listed while MAILROOM_CAPTURE_DIR is set)
// have no kept figures; their lists count (listing.ts).
import type { AppContext } from '../app-context.js';
import { compactionDue, compactMailpitCounts, readMailpitCounts } from '../../infra/db/mailpit-counts.js';
import type { MailpitServer } from './filters.js';

export interface InboxFigures {
  total: number;
  unread: number;
  /** Tags by name (unique whatever their case: the first spelling met), sorted, with their message counts. */
  tags: Map<string, number>;
  /** Rows read beyond the figures: a compaction is due (compactIfDue). */
  due: boolean;
}

/** The kept figures of a Sandbox inbox (inside the caller's read, if any). */
export async function inboxFigures(ctx: Pick<AppContext, 'db'>, server: MailpitServer): Promise<InboxFigures> {
  const c = await readMailpitCounts(ctx.db, server.id);
  const byKey = new Map<string, { name: string; n: number }>();
  // Sorted first so that the spelling kept among case variants does not depend on the rows' order.
  for (const { tag, n } of c.tags.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))) {
    const e = byKey.get(tag.toLowerCase());
    if (e) e.n += n;
    else byKey.set(tag.toLowerCase(), { name: tag, n });
  }
  const tags = [...byKey.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { total: c.total, unread: c.unread, tags: new Map(tags.map((e) => [e.name, e.n])), due: compactionDue(c) };
}

/** Folds the inbox's rows when a read found them due; on the writing pool, after the read. */
export async function compactIfDue(ctx: Pick<AppContext, 'db'>, server: MailpitServer, figures: InboxFigures): Promise<void> {
  if (figures.due) await compactMailpitCounts(ctx.db, server.id);
}
