// Bounce reports and postmaster mail read on a parser thread, as servers' inbound mail and DMARC reports are:
// anyone can send them, and postal-mime's cost is linear but not small (a half-megabyte report head of short
// lines is hundreds of milliseconds), so the event loop only stores what the thread read. A full pool is the
// listener's 451 (ParsersBusy); a message that loses its thread alone reads as nothing readable, as a
// message postal-mime refuses does.
import { WorkerLost, taskModule } from '../../infra/threads/pool.js';
import type { ParsedReport } from '../bounces/parse-report.js';
import type { AppContext } from '../app-context.js';
import { parsersBusy } from '../parsers-busy.js';
import type { Summary } from './postmaster-summary.js';

const REPORT_TASK = new URL(`../bounces/parse-report${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
const SUMMARY_TASK = taskModule(import.meta.url, 'postmaster-summary');

const UNREADABLE_REPORT: ParsedReport = { kind: 'unknown', results: [], original: { messageId: null, returnPath: null, to: [] }, subject: '' };

async function onThread<T>(ctx: AppContext, module: string, fn: string, raw: Buffer, unreadable: T): Promise<T> {
  try {
    return await ctx.threads.run<T>(module, fn, raw);
  } catch (err) {
    const busy = parsersBusy(err);
    if (busy) throw busy;
    if (err instanceof WorkerLost) return unreadable;
    throw err;
  }
}

export const readReport = (ctx: AppContext, raw: Buffer): Promise<ParsedReport> => onThread(ctx, REPORT_TASK, 'parseReport', raw, UNREADABLE_REPORT);

export const readPostmasterSummary = (ctx: AppContext, raw: Buffer): Promise<Summary> => onThread(ctx, SUMMARY_TASK, 'summary', raw, { from: '', subject: '' });
