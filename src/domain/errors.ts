// The one error model. Domain code throws ApiError with a published ErrorCode (docs/reference/error-codes.md,
// "ErrorCode catalogue"); src/http/errors.ts is the only place that turns a code into an HTTP status.

export const ErrorCode = {
  Ok: 0,
  BadToken: 10,
  MultipleErrors: 11,
  NotFound: 12,
  InvalidPaginationKey: 13,
  Maintenance: 100,
  InvalidEmailRequest: 300,
  SenderSignatureNotFound: 400,
  SenderSignatureNotConfirmed: 401,
  InvalidJson: 402,
  InvalidRequestFields: 403,
  NotAllowedToSend: 405,
  InactiveRecipient: 406,
  JsonRequired: 409,
  TooManyBatchMessages: 410,
  ForbiddenAttachmentType: 411,
  AccountPending: 412,
  AccountMayNotSend: 413,
  RateLimited: 429,
  // Sender signatures
  SignatureQueryError: 500,
  SignatureNotFound: 501,
  SignatureNoData: 502,
  PublicDomainNotAllowed: 503,
  SignatureExists: 504,
  DkimRenewalScheduled: 505,
  SignatureAlreadyConfirmed: 506,
  SignatureNotOwned: 507,
  // Domains
  DomainNotFound: 510,
  DomainInvalidFields: 511,
  DomainExists: 512,
  DomainNotOwned: 513,
  DomainNameRequired: 514,
  DomainNameTooLong: 515,
  DomainNameInvalid: 516,
  SignatureFieldRequired: 520,
  SignatureFieldTooLong: 521,
  SignatureFieldInvalid: 522,
  // Servers
  ServerQueryError: 600,
  ServerNotFound: 601,
  ServerNameExists: 603,
  ServerNoDeleteAccess: 604,
  ServerCannotDelete: 605,
  ServerInvalidWebhookUrl: 606,
  ServerInvalidColor: 607,
  ServerNameMissing: 608,
  ServerNoData: 609,
  // Messages
  MessageQueryError: 700,
  MessageNotFound: 701,
  /** A search or list ran past its time limit (domain/read-limit.ts); answered 503. */
  QueryTimeLimit: 702,
  StatsQueryError: 900,
  // Bounces
  BounceQueryError: 1000,
  BounceNotFound: 1001,
  BounceIdRequired: 1002,
  BounceCannotActivate: 1003,
  // Templates
  TemplateQueryError: 1100,
  TemplateNotFound: 1101,
  TemplateLimitExceeded: 1105,
  TemplateNoData: 1109,
  TemplateFieldRequired: 1120,
  TemplateFieldTooLarge: 1121,
  TemplateInvalidSyntax: 1122,
  TemplateFieldNotAllowed: 1123,
  TemplateTypeMismatch: 1125,
  LayoutHasDependents: 1130,
  LayoutContentPlaceholder: 1131,
  // Message streams
  StreamInvalidType: 1221,
  StreamIdRequired: 1222,
  StreamNameRequired: 1223,
  StreamNameTooLong: 1224,
  StreamLimit: 1225,
  StreamNotFound: 1226,
  StreamIdFormat: 1227,
  StreamInboundLimit: 1228,
  StreamDefaultCannotArchive: 1229,
  StreamIdExists: 1230,
  StreamDescriptionTooLong: 1231,
  StreamCannotUnarchive: 1232,
  StreamReservedPrefix: 1233,
  StreamDescriptionHtml: 1234,
  StreamNotOnServer: 1235,
  StreamSendingNotSupported: 1236,
  StreamIdReserved: 1237,
  // DMARC reports (mailroom's own)
  DmarcQueryError: 1500,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A refusal the client can act on. `status` overrides the default mapping for the rare stated exception. */
export class ApiError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
    readonly status?: number,
    readonly extra?: Record<string, unknown>,
    /** Seconds after which the client may try again: answered as the Retry-After header (RFC 9110 10.2.3). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The service has no room for the request now (its sending queue is full, its CSS inlining threads are all
 * busy): nothing was stored, and the same request may succeed in `retryAfter` seconds. The edges answer it as
 * a pause, not a refusal: HTTP 503 with Retry-After (src/http/errors.ts), SMTP 451 4.3.2.
 */
export class ServiceBusy extends ApiError {
  constructor(message: string, retryAfterSeconds = 1) {
    super(ErrorCode.Maintenance, message, undefined, undefined, retryAfterSeconds);
    this.name = 'ServiceBusy';
  }
}

/** The HTTP status of an ErrorCode (docs/reference/error-codes.md, "The error body and HTTP statuses"). */
export function httpStatusFor(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.BadToken:
      return 401;
    case ErrorCode.JsonRequired:
      return 415;
    case ErrorCode.RateLimited:
      return 429;
    case ErrorCode.Maintenance:
    case ErrorCode.QueryTimeLimit:
      return 503;
    default:
      return 422;
  }
}
