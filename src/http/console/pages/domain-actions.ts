// The checks of a domain's records, each the same domain call as its API route (PUT verifyDkim,
// verifyReturnPath, verifyCustomTracking, verifyDmarc; POST verifyspf), and DKIM rotation (POST
// rotatedkim). Each goes back to the domain page saying what DNS showed; the page shows the stored status.
import type { AppContext } from '../../../domain/app-context.js';
import {
  getDomain,
  rotateDomainDkim,
  verifyDomainCustomTracking,
  verifyDomainDkim,
  verifyDomainDmarc,
  verifyDomainReturnPath,
  verifyDomainSpf,
} from '../../../domain/domains/domains.js';
import { redirectWith, type ConsoleRouter } from '../router.js';
import { rowIdOf } from './row-id.js';

const outcome = (ok: boolean, what: string, name: string) =>
  ok ? { notice: `${what} of ${name} verified.` } : { error: `${what} of ${name} is not verified yet: the DNS record was not found or does not match.` };

export function registerDomainActions(r: ConsoleRouter, ctx: AppContext): void {
  const back = (id: number) => `/console/domains/${id}`;
  r.action('/console/domains/:id/verify-dkim', async (c) => {
    const d = await verifyDomainDkim(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, back(d.id), outcome(d.dkim_verified === 1 && d.dkim_update_status !== 'Pending', 'The DKIM key', d.name));
  });
  r.action('/console/domains/:id/verify-return-path', async (c) => {
    const d = await verifyDomainReturnPath(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, back(d.id), outcome(d.return_path_verified === 1, 'The Return-Path', d.name));
  });
  r.action('/console/domains/:id/verify-spf', async (c) => {
    const d = await getDomain(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    const spf = await verifyDomainSpf(ctx, d);
    return redirectWith(c.reply, back(d.id), outcome(spf.SPFVerified, 'The SPF record', d.name));
  });
  r.action('/console/domains/:id/verify-dmarc', async (c) => {
    const d = await verifyDomainDmarc(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, back(d.id), outcome(d.dmarc_verified === 1, 'The DMARC record', d.name));
  });
  r.action('/console/domains/:id/verify-tracking', async (c) => {
    const d = await verifyDomainCustomTracking(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, back(d.id), outcome(d.custom_tracking_verified === 1, `The tracking domain ${d.custom_tracking_domain}`, d.name));
  });
  r.action('/console/domains/:id/rotate-dkim', async (c) => {
    const d = await rotateDomainDkim(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, back(d.id), { notice: `A new DKIM key for ${d.name} is pending: publish it, then verify.` });
  });
}
