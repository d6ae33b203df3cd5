// The operator's first-send path (README, "First send"): a sender signature or a domain added from the shell
// by whoever runs the service. `--confirmed` skips the mailed confirmation link: the operator vouches for the
// address (a test address behind a local capture would never receive the link otherwise).
import type { AppContext } from '../app-context.js';
import { createDomain } from '../domains/domains.js';
import { domainDetail } from '../domains/view.js';
import { createSignature } from '../sender-signatures/signatures.js';

async function firstAccountId(ctx: AppContext): Promise<number> {
  const account = await ctx.db.selectFrom('accounts').select('id').orderBy('id').limit(1).executeTakeFirst();
  if (!account) throw new Error('the database has no account yet: run `mailroom serve` once first');
  return account.id;
}

export async function addSender(ctx: AppContext, email: string, o: { name: string; confirmed: boolean }): Promise<{ id: number; email: string; confirmed: boolean }> {
  const accountId = await firstAccountId(ctx);
  const sig = await createSignature(ctx, accountId, { FromEmail: email, Name: o.name }, { confirmed: o.confirmed });
  return { id: sig.id, email: sig.email, confirmed: o.confirmed };
}

export async function addDomain(ctx: AppContext, name: string): Promise<Record<string, unknown>> {
  return domainDetail(ctx, await createDomain(ctx, await firstAccountId(ctx), { Name: name }));
}
