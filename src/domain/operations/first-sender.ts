// The operator's first-send path (README, "First send"): a sender signature or a domain added from the shell
// by whoever runs the service. `--confirmed` skips the mailed confirmation link: the operator vouches for the
// address (a test address behind a local capture would never receive the link otherwise).
import type { AppContext } from '../app-context.js';
import { createDomain } from '../domains/domains.js';
import { domainDetail } from '../domains/view.js';
import { createSignature } from '../sender-signatures/signatures.js';
import { createAccountServer } from '../servers/account-servers.js';

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

/**
 * `mailroom server add NAME [--sandbox]`: through the same rules as POST /servers (name required and free). A
 * Sandbox server made here is a test inbox: it takes any From (SandboxAcceptsAnyFrom), as Mailpit does.
 */
export async function addServer(ctx: AppContext, name: string, o: { sandbox: boolean }): Promise<{ id: number; name: string; deliveryType: string; token: string }> {
  const { row, token } = await createAccountServer(ctx, await firstAccountId(ctx), { Name: name, DeliveryType: o.sandbox ? 'Sandbox' : 'Live', ...(o.sandbox ? { SandboxAcceptsAnyFrom: true } : {}) });
  return { id: row.id, name: row.name, deliveryType: row.delivery_type, token };
}
