// Domain answers (docs/reference/domains.md, "Domain record"): the list item and the detail.
import type { Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { spfTextValue } from '../../infra/dns/spf.js';
import { WEAK_DKIM_BITS } from '../../infra/dkim/keys.js';
import { dkimFields, loadDomainKeys, type DomainKeys } from './dkim-state.js';
import { trackingCnameTarget } from './tracking-domain.js';
import { dmarcFields } from '../dmarc/dns-record.js';

export type DomainRow = Selectable<Database['domains']>;

/** `keys` (loadDomainKeys) gives WeakDKIM, which the hosted service's list items carry too. */
export function domainListItem(d: DomainRow, keys?: DomainKeys): Record<string, unknown> {
  const shown = keys?.active ?? keys?.pending ?? null;
  return {
    ID: d.id,
    Name: d.name,
    SPFVerified: d.spf_verified === 1,
    DKIMVerified: d.dkim_verified === 1,
    WeakDKIM: shown ? shown.bits < WEAK_DKIM_BITS : false,
    ReturnPathDomainVerified: d.return_path_verified === 1,
  };
}

export async function domainDetail(ctx: AppContext, d: DomainRow): Promise<Record<string, unknown>> {
  const keys = (await loadDomainKeys(ctx, [d.id])).get(d.id)!;
  return {
    Name: d.name,
    SPFVerified: d.spf_verified === 1,
    SPFHost: d.name,
    SPFTextValue: spfTextValue(ctx.config.spfInclude),
    ...(await dkimFields(ctx, d, keys)),
    ReturnPathDomain: d.return_path_domain,
    ReturnPathDomainVerified: d.return_path_verified === 1,
    ReturnPathDomainCNAMEValue: ctx.config.returnPathDomain,
    // mailroom's own fields: the hosted service's domain has no tracking host.
    CustomTrackingDomain: d.custom_tracking_domain,
    CustomTrackingVerified: d.custom_tracking_verified === 1,
    CustomTrackingCNAMEValue: trackingCnameTarget(ctx),
    // The name the hosted service answers and its PHP client reads (PostmarkDomainDetails): the target once a
    // tracking host is set, else null (the client's suite expects none for a new domain). The one above stays.
    CustomTrackingDomainCNAMEValue: d.custom_tracking_domain ? trackingCnameTarget(ctx) : null,
    // mailroom's own fields: the _dmarc record with mailroom's report address (domain/dmarc/dns-record.ts).
    ...dmarcFields(ctx, d),
    ID: d.id,
  };
}
