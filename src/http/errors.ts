// The single place where failures become HTTP answers. Every non-2xx body is {ErrorCode, Message}.
import type { FastifyError } from 'fastify';
import { ApiError, ErrorCode, httpStatusFor } from '../errors.js';
import type { App } from './types.js';

/** ErrorCode for an unexpected failure (not in the published catalogue; the body carries a request id). */
export const INTERNAL_ERROR_CODE = 1;

function describeValidation(err: FastifyError): string {
  const v = err.validation?.[0];
  if (!v) return err.message;
  const where = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const ctx = err.validationContext === 'body' ? '' : `${err.validationContext} `;
  const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
  if (missing) return `The ${ctx}field '${where ? `${where}.` : ''}${missing}' is required.`;
  return `The ${ctx}field '${where || err.validationContext}' ${v.message ?? 'is invalid'}.`;
}

export function registerErrorHandling(app: App): void {
  app.setErrorHandler((err: FastifyError & Partial<ApiError>, req, reply) => {
    if (err instanceof ApiError) {
      return reply.status(err.status ?? httpStatusFor(err.errorCode)).send({ ErrorCode: err.errorCode, Message: err.message, ...err.extra });
    }
    if (err.validation) {
      const code = req.routeOptions.config?.validationErrorCode ?? ErrorCode.InvalidRequestFields;
      return reply.status(422).send({ ErrorCode: code, Message: describeValidation(err) });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send({ ErrorCode: ErrorCode.InvalidEmailRequest, Message: 'The request body is too large.' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(415).send({ ErrorCode: ErrorCode.JsonRequired, Message: 'Send a JSON body with Content-Type: application/json.' });
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return reply.status(422).send({ ErrorCode: ErrorCode.InvalidJson, Message: 'The request body is not valid JSON.' });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.status(400).send({ ErrorCode: ErrorCode.InvalidJson, Message: 'Content-Length does not match the body.' });
      case 'FST_ERR_BAD_URL':
        return reply.status(400).send({ ErrorCode: ErrorCode.InvalidRequestFields, Message: 'The request URL is malformed.' });
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(err.statusCode).send({ ErrorCode: ErrorCode.InvalidRequestFields, Message: err.message });
    }
    req.log.error({ err }, 'unexpected error');
    return reply
      .status(500)
      .send({ ErrorCode: INTERNAL_ERROR_CODE, Message: `Internal server error. Request id: ${req.id}` });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ ErrorCode: ErrorCode.NotFound, Message: `No route for ${req.method} ${req.url.split('?')[0]}.` });
  });
}
