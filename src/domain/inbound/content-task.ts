// Run on a parser thread (infra/threads): a stored payload read or trimmed. A payload of 10,000 attachments, or
// one 10 MB attachment, is megabytes of JSON; parsing (and writing) it took the main thread 50-100 ms and more.
import { withoutContent, type InboundPayload } from './payload.js';

/** The stored payload without its attachment content and raw source, once the application has the message. */
export function strippedPayload(json: string): string {
  return JSON.stringify(withoutContent(JSON.parse(json) as InboundPayload));
}

/** The stored payload parsed; `whole: false` leaves out attachment content and the raw source (the console's
 * view shows attachments by name and size). */
export function parsedPayload(input: { json: string; whole: boolean }): InboundPayload {
  const p = JSON.parse(input.json) as InboundPayload;
  return input.whole ? p : withoutContent(p);
}
