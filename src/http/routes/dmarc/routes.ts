import type { AppContext } from '../../../domain/app-context.js';
import { getDomain } from '../../../domain/domains/domains.js';
import { dmarcSummary, listDmarcReports } from '../../../domain/dmarc/query.js';
import { ErrorCode } from '../../../domain/errors.js';
import { checkDepth } from '../../pagination.js';
import { accountAuth, type App } from '../../types.js';
import { DmarcDomainParams, DmarcReportsQuery, DmarcSummaryQuery } from './schemas.js';

/** A domain's DMARC aggregate reports (README "DMARC reports"), with the account token. */
export default async function dmarcRoutes(app: App, ctx: AppContext): Promise<void> {
  const config = { auth: 'account' as const, validationErrorCode: ErrorCode.DmarcQueryError };
  const base = { tags: ['domains'], security: [{ accountToken: [] }] };

  app.get('/domains/:id/dmarc/reports', { config, schema: { ...base, params: DmarcDomainParams, querystring: DmarcReportsQuery } }, async (req) => {
    const d = await getDomain(ctx, accountAuth(req.auth).accountId, req.params.id);
    checkDepth(req.query.count, req.query.offset);
    return listDmarcReports(ctx, d.id, req.query.count, req.query.offset);
  });

  app.get('/domains/:id/dmarc', { config, schema: { ...base, params: DmarcDomainParams, querystring: DmarcSummaryQuery } }, async (req) => {
    const d = await getDomain(ctx, accountAuth(req.auth).accountId, req.params.id);
    return dmarcSummary(ctx, d.id, req.query.fromdate, req.query.todate);
  });
}
