// Run on a parser thread (infra/threads): the stored payload without its attachment content and raw source,
// once the application has the message (payload.ts withoutContent). A payload of 10,000 attachments is
// megabytes of JSON; parsing and writing it again took the main thread 50-100 ms per delivered message.
import { withoutContent, type InboundPayload } from './payload.js';

export function strippedPayload(json: string): string {
  return JSON.stringify(withoutContent(JSON.parse(json) as InboundPayload));
}
