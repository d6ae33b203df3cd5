// A stream's suppressions as CSV (address, reason, origin, since), streamed a keyset page at a time
// (domain/suppressions/export-pages.ts), so memory stays one page whatever the list's size. A cell that a
// spreadsheet would read as a formula (starting with = + - @, a tab or a carriage return) is prefixed with
// a single quote and every cell is quoted, as OWASP's "CSV Injection" advises: an address such as
// "=HYPERLINK(...)@example.com" is valid mail syntax and must open as text.
import { Readable } from 'node:stream';
import type { AppContext } from '../../../domain/app-context.js';
import { getStream } from '../../../domain/streams/find-stream.js';
import { exportSuppressions } from '../../../domain/suppressions/export-pages.js';
import type { ConsoleRouter } from '../router.js';

const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);

/** One CSV cell (RFC 4180 2.5-2.7: quoted, quotes doubled), inert in a spreadsheet. */
export function csvCell(value: string): string {
  const inert = value !== '' && FORMULA_START.has(value[0]!) ? `'${value}` : value;
  return `"${inert.replace(/"/g, '""')}"`;
}

export function registerSuppressionExport(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/suppressions/export.csv', async (c) => {
    const stream = await getStream(ctx.db, c.server.id, c.query.stream || 'outbound');
    const pages = exportSuppressions(ctx.db, c.server.id, stream.id, c.query.reason || undefined);
    // The first page is read before answering: a refused filter is an error page, not a broken download.
    const first = await pages.next();
    async function* lines() {
      yield 'EmailAddress,SuppressionReason,Origin,CreatedAt\r\n';
      if (first.done) return;
      let batch: typeof first.value | undefined = first.value;
      while (batch) {
        yield batch.map((s) => [s.EmailAddress, s.SuppressionReason, s.Origin, s.CreatedAt ?? ''].map(csvCell).join(',') + '\r\n').join('');
        const next = await pages.next();
        batch = next.done ? undefined : next.value;
      }
    }
    const name = `suppressions-${c.server.id}-${stream.id}.csv`.replace(/[^A-Za-z0-9._-]/g, '_');
    void c.reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`);
    return void c.reply.send(Readable.from(lines()));
  });
}
