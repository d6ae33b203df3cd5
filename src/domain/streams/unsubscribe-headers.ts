// Contract between delivery and unsubscribe: extra headers for one recipient's copy. Mail of a Broadcasts
// stream carries a per-recipient List-Unsubscribe link (RFC 2369) with one-click POST (RFC 8058), unless the
// stream's owner handles unsubscribes themselves (UnsubscribeHandlingType Custom). RFC 8058 section 4 wants
// both headers covered by the DKIM signature: the delivery worker adds them before signing.
import type { AppContext } from '../app-context.js';
import { unsubscribeUrl } from './unsubscribe-token.js';

export interface UnsubscribeInput {
  serverId: number;
  streamId: string;
  streamType: string;
  messageId: string;
  recipient: string;
  /** The stream's UnsubscribeHandlingType when known (message_streams.unsubscribe_handling); Custom adds none. */
  unsubscribeHandling?: string | null;
  /** The From domain's verified tracking host as https://host; null or absent: the public URL. */
  baseUrl?: string | null;
}

export function unsubscribeHeaders(ctx: AppContext, input: UnsubscribeInput): Array<{ key: string; value: string }> {
  if (input.streamType !== 'Broadcasts' || input.unsubscribeHandling === 'Custom') return [];
  const url = unsubscribeUrl(ctx, input, input.baseUrl ?? undefined);
  return [
    { key: 'List-Unsubscribe', value: `<${url}>` },
    { key: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
  ];
}
