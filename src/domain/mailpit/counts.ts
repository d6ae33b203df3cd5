// A Sandbox inbox's figures as Mailpit's lists show them (total, unread, the tags in use with their counts),
// read from the rows migration 0038's triggers keep on every write, not counted per request: a list costs the
// same at a million messages as at ten. A Live server's messages (listed while MAILROOM_CAPTURE_DIR is set)
// have no kept figures; their lists count (listing.ts).
import type { AppContext } from '../app-context.js';
import { compactionDue, compactMailpitCounts, readMailpitCounts, readTagCounts } from '../../infra/db/mailpit-counts.js';
import type { MailpitServer } from './filters.js';
import type { Term } from './query.js';

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

/** Printable ASCII but the JSON escapes: where `lower(tag) = value` and tagged()'s match of a state's list agree (tag-term.ts). */
const FOLDS_ALIKE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * A search's count window (listing.ts: its newest `window` matches, and how many of them are unread) from
 * the kept figures, when the terms are one of these shapes on a Sandbox inbox: `is:unread` or `is:read`
 * (the inbox's row), a `tag:` with either (the tag's rows, migration 0040), or a `tag:` alone with at most
 * `window` messages. Null for any other search: its window is read. Read inside the search's transaction.
 */
export async function keptSearchCount(ctx: Pick<AppContext, 'db'>, server: MailpitServer, terms: Term[], window: number): Promise<{ n: number; unread: number } | null> {
  if (!server.sandbox || terms.length === 0 || terms.length > 2 || terms.some((t) => t.exclude)) return null;
  const flags = terms.filter((t) => t.kind === 'flag');
  const tags = terms.filter((t) => t.kind === 'field' && t.field === 'tag');
  if (flags.length + tags.length !== terms.length || flags.length > 1 || tags.length > 1) return null;
  const flag = flags[0]?.kind === 'flag' ? flags[0].flag : undefined;
  if (flag !== undefined && flag !== 'read' && flag !== 'unread') return null;
  const tag = tags[0]?.kind === 'field' ? tags[0].value : undefined;
  if (tag !== undefined && !FOLDS_ALIKE.test(tag)) return null;
  let all: { n: number; unread: number };
  if (tag === undefined) {
    const c = await readMailpitCounts(ctx.db, server.id);
    all = { n: c.total, unread: c.unread };
  } else all = await readTagCounts(ctx.db, server.id, tag.toLowerCase());
  if (flag === 'unread') return { n: Math.min(window, all.unread), unread: Math.min(window, all.unread) };
  if (flag === 'read') return { n: Math.min(window, all.n - all.unread), unread: 0 };
  // Every match is counted: which of them are unread does not depend on the order.
  return all.n <= window ? all : null;
}
