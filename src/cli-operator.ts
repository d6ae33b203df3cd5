// Operator commands of the CLI (status, server add, sender add, domain add, postmaster, dmarc, backup): each takes the parsed arguments and
// returns the text to print. Kept apart from cli.ts so that each stays one screen long.
import type { AppContext } from './context.js';
import { ApiError } from './domain/errors.js';
import { addDomain, addSender, addServer } from './domain/operations/first-sender.js';
import { formatStatus, statusReport } from './domain/operations/status.js';
import { listPostmaster, readPostmaster } from './domain/inbound/postmaster.js';
import { listUnattached } from './domain/dmarc/unattached.js';
import { backupSqlite } from './infra/db/backup.js';

export class OperatorUsage extends Error {}

type Values = { name?: string; confirmed?: boolean; json?: boolean; sandbox?: boolean };
type Command = (ctx: AppContext, args: string[], values: Values) => Promise<string>;

/** A refusal of the domain rules (an address that is not one, a duplicate) is a usage error, not a crash. */
async function domainCall<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof ApiError) throw new OperatorUsage(err.message);
    throw err;
  }
}

export const OPERATOR_COMMANDS: Record<string, Command> = {
  async status(ctx, _args, values) {
    const r = await statusReport(ctx);
    return values.json ? `${JSON.stringify(r, null, 2)}\n` : formatStatus(r);
  },
  async sender(ctx, [sub, email], values) {
    if (sub !== 'add' || !email) throw new OperatorUsage('usage: mailroom sender add EMAIL --name NAME [--confirmed]');
    if (!values.name) throw new OperatorUsage('sender add needs --name NAME (the From name)');
    const r = await domainCall(() => addSender(ctx, email, { name: values.name!, confirmed: values.confirmed === true }));
    return r.confirmed
      ? `sender ${r.email} added (ID ${r.id}), confirmed: it may send now\n`
      : `sender ${r.email} added (ID ${r.id}); a confirmation link was queued to that address\n`;
  },
  async server(ctx, [sub, name], values) {
    if (sub !== 'add' || !name) throw new OperatorUsage('usage: mailroom server add NAME [--sandbox]');
    const r = await domainCall(() => addServer(ctx, name, { sandbox: values.sandbox === true }));
    return `server "${r.name}" added (ID ${r.id}, ${r.deliveryType}). Its server token (X-Service-Server-Token), shown once:\n  ${r.token}\n`;
  },
  async domain(ctx, [sub, name]) {
    if (sub !== 'add' || !name) throw new OperatorUsage('usage: mailroom domain add NAME');
    const d = await domainCall(() => addDomain(ctx, name));
    const lines = [`domain ${String(d.Name)} added (ID ${String(d.ID)}). Publish these DNS records, then verify through the API:`];
    if (d.DKIMPendingHost) lines.push(`  TXT   ${String(d.DKIMPendingHost)}  "${String(d.DKIMPendingTextValue)}"`);
    if (d.ReturnPathDomain) lines.push(`  CNAME ${String(d.ReturnPathDomain)}  ${String(d.ReturnPathDomainCNAMEValue)}`);
    lines.push(`  TXT   ${String(d.DMARCHost)}  "${String(d.DMARCTextValue)}"`);
    return `${lines.join('\n')}\n`;
  },
  async postmaster(ctx, [sub, id]) {
    if (sub === 'show' && id) {
      const m = await readPostmaster(ctx, id);
      if (m === null) throw new OperatorUsage(`no message ${id} for postmaster (mailroom postmaster lists them)`);
      return m.endsWith('\n') ? m : `${m}\n`;
    }
    if (sub !== undefined && sub !== 'list') throw new OperatorUsage('usage: mailroom postmaster [list | show ID]');
    const r = await listPostmaster(ctx);
    const lines = [`${r.total} message${r.total === 1 ? '' : 's'} for postmaster${r.total > r.messages.length ? ` (the newest ${r.messages.length} below)` : ''}; \`mailroom postmaster show ID\` prints one`];
    for (const m of r.messages) {
      lines.push(`  ${m.id}  ${new Date(m.receivedAt).toISOString()}  ${m.size} bytes  from ${m.from || '-'} (MAIL FROM <${m.mailFrom}>, ${m.remoteIp})  ${m.subject}`);
    }
    return `${lines.join('\n')}\n`;
  },
  async dmarc(ctx, [sub]) {
    if (sub !== undefined && sub !== 'unattached') throw new OperatorUsage('usage: mailroom dmarc [unattached]');
    const r = await listUnattached(ctx);
    const lines = [`${r.total} DMARC report${r.total === 1 ? '' : 's'} kept apart (no domain of an account may take ${r.total === 1 ? 'it' : 'them'})${r.total > r.reports.length ? `; the newest ${r.reports.length} below` : ''}`];
    // Reporter-given values are printed with control characters removed: they come from strangers.
    const clean = (v: string) => v.replace(/[\u0000-\u001f\u007f]/g, '?');
    for (const x of r.reports) {
      lines.push(`  ${new Date(x.receivedAt).toISOString()}  ${clean(x.policyDomain) || '-'}  ${x.status === 'stored' ? `${clean(x.orgName)} <${clean(x.email)}> report ${clean(x.reportId)}, ${x.messages} messages` : `refused: ${clean(x.reason)}`}  (to ${clean(x.recipient)})`);
    }
    return `${lines.join('\n')}\n`;
  },
  async backup(ctx, [file]) {
    if (!file) throw new OperatorUsage('usage: mailroom backup FILE');
    await backupSqlite(ctx.database, file);
    return `backup written to ${file} (mode 0600). Keep secret.key with it: without the key, signed links and encrypted fields cannot be read.\n`;
  },
};
