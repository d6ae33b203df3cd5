import type { AppContext } from '../../../domain/app-context.js';
import {
  createDomain,
  deleteDomain,
  getDomain,
  listDomains,
  rotateDomainDkim,
  updateDomain,
  verifyDomainCustomTracking,
  verifyDomainDkim,
  verifyDomainDmarc,
  verifyDomainReturnPath,
  verifyDomainSpf,
} from '../../../domain/domains/domains.js';
import { domainDetail, domainListItem } from '../../../domain/domains/view.js';
import { loadDomainKeys } from '../../../domain/domains/dkim-state.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { accountAuth, type App } from '../../types.js';
import { CreateDomainBody, DomainIdParams, DomainListQuery, UpdateDomainBody } from './schemas.js';

/** Domains of the account (docs/reference/domains.md; codes 510-516). */
export default async function domainRoutes(app: App, ctx: AppContext): Promise<void> {
  const config = { auth: 'account' as const, validationErrorCode: ErrorCode.DomainInvalidFields };
  const base = { tags: ['domains'], security: [{ accountToken: [] }] };
  const byId = { config, schema: { ...base, params: DomainIdParams } };

  app.get('/domains', { config, schema: { ...base, querystring: DomainListQuery } }, async (req) => {
    const { total, rows } = await listDomains(ctx, accountAuth(req.auth).accountId, req.query.count, req.query.offset);
    const keys = await loadDomainKeys(ctx, rows.map((r) => r.id));
    return { TotalCount: total, Domains: rows.map((r) => domainListItem(r, keys.get(r.id))) };
  });

  app.get('/domains/:id', byId, async (req) => domainDetail(ctx, await getDomain(ctx, accountAuth(req.auth).accountId, req.params.id)));

  // No body at all is a missing Name (514), not a malformed request.
  const requireName = async (req: { body: unknown }) => {
    if (req.body === undefined || req.body === null) throw new ApiError(ErrorCode.DomainNameRequired, 'Name is required.');
  };
  app.post('/domains', { config, preValidation: requireName, schema: { ...base, body: CreateDomainBody } }, async (req) =>
    domainDetail(ctx, await createDomain(ctx, accountAuth(req.auth).accountId, req.body ?? {})),
  );

  app.put('/domains/:id', { config, schema: { ...base, params: DomainIdParams, body: UpdateDomainBody } }, async (req) =>
    domainDetail(ctx, await updateDomain(ctx, accountAuth(req.auth).accountId, req.params.id, req.body ?? {})),
  );

  app.delete('/domains/:id', byId, async (req) => {
    const name = await deleteDomain(ctx, accountAuth(req.auth).accountId, req.params.id);
    return { ErrorCode: 0, Message: `Domain ${name} removed.` };
  });

  app.put('/domains/:id/verifyDkim', byId, async (req) =>
    domainDetail(ctx, await verifyDomainDkim(ctx, accountAuth(req.auth).accountId, req.params.id)),
  );

  app.post('/domains/:id/verifyspf', byId, async (req) => verifyDomainSpf(ctx, await getDomain(ctx, accountAuth(req.auth).accountId, req.params.id)));

  app.put('/domains/:id/verifyReturnPath', byId, async (req) =>
    domainDetail(ctx, await verifyDomainReturnPath(ctx, accountAuth(req.auth).accountId, req.params.id)),
  );

  app.put('/domains/:id/verifyCustomTracking', byId, async (req) =>
    domainDetail(ctx, await verifyDomainCustomTracking(ctx, accountAuth(req.auth).accountId, req.params.id)),
  );

  // mailroom's own: reads _dmarc.<domain> now; DMARCVerified and DMARCPolicy say what it found.
  app.put('/domains/:id/verifyDmarc', byId, async (req) =>
    domainDetail(ctx, await verifyDomainDmarc(ctx, accountAuth(req.auth).accountId, req.params.id)),
  );

  app.post('/domains/:id/rotatedkim', byId, async (req) =>
    domainDetail(ctx, await rotateDomainDkim(ctx, accountAuth(req.auth).accountId, req.params.id)),
  );
}
