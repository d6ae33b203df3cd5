import type { AppContext } from '../../../domain/app-context.js';
import { startRenewal } from '../../../domain/domains/dkim-state.js';
import { getDomain, verifyDomainSpf } from '../../../domain/domains/domains.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { accountAuth, type App } from '../../types.js';
import {
  createSignature,
  deleteSignature,
  getSignature,
  listSignatures,
  resendConfirmation,
  updateSignature,
} from '../../../domain/sender-signatures/signatures.js';
import { signatureDetail, signatureListItem } from '../../../domain/sender-signatures/view.js';
import { CreateSignatureBody, SignatureIdParams, SignatureListQuery, UpdateSignatureBody } from './schemas.js';

/** 502 when a create/update request carries no body at all (before the schema would call it malformed). */
async function requireBody(req: { body: unknown }): Promise<void> {
  if (req.body === undefined || req.body === null) throw new ApiError(ErrorCode.SignatureNoData, 'The request carries no sender signature data.');
}

/** Sender signatures of the account (docs/reference/sender-signatures.md; codes 500-507, 520-522). */
export default async function senderRoutes(app: App, ctx: AppContext): Promise<void> {
  const config = { auth: 'account' as const, validationErrorCode: ErrorCode.SignatureFieldInvalid };
  const base = { tags: ['senders'], security: [{ accountToken: [] }] };
  const byId = { config, schema: { ...base, params: SignatureIdParams } };

  app.get('/senders', { config, schema: { ...base, querystring: SignatureListQuery } }, async (req) => {
    const { total, rows } = await listSignatures(ctx, accountAuth(req.auth).accountId, req.query.count, req.query.offset);
    return { TotalCount: total, SenderSignatures: rows.map(signatureListItem) };
  });

  app.get('/senders/:id', byId, async (req) => signatureDetail(ctx, await getSignature(ctx, accountAuth(req.auth).accountId, req.params.id)));

  app.post('/senders', { config, preValidation: requireBody, schema: { ...base, body: CreateSignatureBody } }, async (req) =>
    signatureDetail(ctx, await createSignature(ctx, accountAuth(req.auth).accountId, req.body ?? {})),
  );

  app.put('/senders/:id', { config, preValidation: requireBody, schema: { ...base, params: SignatureIdParams, body: UpdateSignatureBody } }, async (req) =>
    signatureDetail(ctx, await updateSignature(ctx, accountAuth(req.auth).accountId, req.params.id, req.body ?? {})),
  );

  app.delete('/senders/:id', byId, async (req) => {
    const email = await deleteSignature(ctx, accountAuth(req.auth).accountId, req.params.id);
    return { ErrorCode: 0, Message: `Signature ${email} removed.` };
  });

  app.post('/senders/:id/resend', byId, async (req) => {
    const sig = await resendConfirmation(ctx, accountAuth(req.auth).accountId, req.params.id);
    return { ErrorCode: 0, Message: `Confirmation email for signature ${sig.email} was re-sent.` };
  });

  app.post('/senders/:id/verifyspf', byId, async (req) => {
    const { accountId } = accountAuth(req.auth);
    const sig = await getSignature(ctx, accountId, req.params.id);
    await verifyDomainSpf(ctx, await getDomain(ctx, accountId, sig.domain_id));
    return signatureDetail(ctx, await getSignature(ctx, accountId, sig.id), { withNote: false });
  });

  app.post('/senders/:id/requestnewdkim', byId, async (req) => {
    const { accountId } = accountAuth(req.auth);
    const sig = await getSignature(ctx, accountId, req.params.id);
    const domain = await getDomain(ctx, accountId, sig.domain_id);
    try {
      await startRenewal(ctx, domain);
    } catch (err) {
      // The specification's one result-body error: this route answers {ErrorCode, Message}, and a renewal
      // already running is ErrorCode 505 in it, with HTTP 200 (its "Errors" and "Sender signature DKIM").
      if (err instanceof ApiError && err.errorCode === ErrorCode.DkimRenewalScheduled) return { ErrorCode: err.errorCode, Message: err.message };
      throw err;
    }
    return { ErrorCode: 0, Message: `A new DKIM key was created for ${domain.name}; publish the pending DKIM record to activate it.` };
  });
}
