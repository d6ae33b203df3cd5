// SMTP replies of the submission listener, each with its enhanced status code (RFC 3463, RFC 2034) chosen
// here rather than derived by smtp-server from the reply code (it maps every 550 to 5.1.1 "bad mailbox").
// A refusal carries the API's own message, so an SMTP client reads the same explanation as an API client.
import { ErrorCode } from '../domain/errors.js';

export interface SmtpReply {
  code: number;
  /** Starts with the enhanced status code. */
  message: string;
}

/** The API's refusal of a message (ErrorCode and HTTP status) as an SMTP reply to DATA. */
export function refusalReply(errorCode: number, status: number, message: string): SmtpReply {
  // RFC 3463: X.3.4 message too big for system.
  if (status === 413) return { code: 552, message: `5.3.4 ${message}` };
  // A 5xx refusal of the service's own state (503: its queue is full, or it is draining) would make the
  // client drop a message it could send a second later: RFC 5321 4.2.5 asks for a 4xx, X.3.2 "system not
  // accepting network messages" (RFC 3463).
  if (status === 503 || errorCode === ErrorCode.Maintenance) return { code: 451, message: `4.3.2 ${message}` };
  switch (errorCode) {
    case ErrorCode.SenderSignatureNotFound:
    case ErrorCode.SenderSignatureNotConfirmed:
      // X.7.1: delivery not authorized, message refused (the From address is not the account's).
      return { code: 550, message: `5.7.1 ${message}` };
    case ErrorCode.InactiveRecipient:
      // The whole message is refused, as the API refuses it; see README "SMTP submission".
      return { code: 550, message: `5.7.1 ${message}` };
    case ErrorCode.ForbiddenAttachmentType:
      // X.6.0: other or undefined media error (the content is refused, not the addresses).
      return { code: 550, message: `5.6.0 ${message}` };
    case ErrorCode.StreamNotOnServer:
    case ErrorCode.StreamSendingNotSupported:
      return { code: 550, message: `5.7.1 ${message}` };
    case ErrorCode.ServerNotFound:
      return { code: 550, message: `5.7.0 ${message}` };
    case ErrorCode.InvalidEmailRequest:
      return { code: 550, message: `5.6.0 ${message}` };
    default:
      return { code: 550, message: `5.0.0 ${message}` };
  }
}

/** RFC 5321 4.2.5: a local failure answers 451, and the client keeps the message and tries again. */
export const TEMPORARY_FAILURE: SmtpReply = { code: 451, message: '4.3.0 Temporary failure, the message was not stored; try again later' };

/** The reply to credentials authorizeSubmission refused (RFC 4954 6: 535 5.7.8 invalid credentials). */
export function authRefusal(reason: 'bad-token' | 'account-token' | 'smtp-off' | 'two-servers'): SmtpReply {
  switch (reason) {
    case 'smtp-off':
      return { code: 535, message: "5.7.1 SMTP is not activated for this server: set 'SmtpApiActivated' to true (PUT /server), or send through the HTTP API" };
    case 'account-token':
      return { code: 535, message: '5.7.8 An account token cannot send mail: authenticate with a server token (as user name and password)' };
    case 'two-servers':
      return { code: 535, message: '5.7.8 The user name and the password are the tokens of two different servers: give the same server token in both' };
    default:
      return { code: 535, message: '5.7.8 Authentication failed: the user name and password must be a valid server token' };
  }
}
