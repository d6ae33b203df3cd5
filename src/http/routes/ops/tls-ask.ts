// GET /tls/ask?domain=<host>: the question an operator's TLS terminator asks before it obtains a certificate
// on demand (Caddy's on_demand_tls `ask`: any 2xx allows, anything else refuses). 200 when the host is a
// verified custom tracking host (domains/tracking-domain.ts), 404 otherwise, so that nobody can make the
// terminator request certificates for names that merely point at it (docs/operations.md, "Custom tracking
// domains and TLS"). It tells only what DNS already shows (the host's CNAME), so it needs no token.
import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import { isVerifiedTrackingHost } from '../../../domain/domains/tracking-domain.js';
import { ErrorCode } from '../../../domain/errors.js';
import type { App } from '../../types.js';

// Any length is read as a name (and refused as one by the look-up): the terminator gets a 404, not a 422.
const Query = Type.Object({ domain: Type.Optional(Type.String()) });

export default async function tlsAskRoute(app: App, ctx: AppContext): Promise<void> {
  app.get('/tls/ask', { schema: { hide: true, querystring: Query }, config: { validationErrorCode: ErrorCode.NotFound } }, async (req, reply) => {
    const host = req.query.domain?.trim() ?? '';
    if (!host) return reply.status(400).send({ ErrorCode: ErrorCode.NotFound, Message: 'The domain query parameter is required.' });
    if (await isVerifiedTrackingHost(ctx, host)) return reply.send({ ErrorCode: 0, Message: `${host} is a verified tracking host.` });
    return reply.status(404).send({ ErrorCode: ErrorCode.NotFound, Message: `${host.slice(0, 300)} is not a verified tracking host.` });
  });
}
