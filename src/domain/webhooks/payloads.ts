// The JSON bodies of webhook notifications (docs/reference/webhooks.md, "Payloads"). Built once, when the event
// is recorded, and stored as the exact text that is sent and signed.
import type { Selectable } from 'kysely';
import type { BouncesTable } from '../../infra/db/tables/bounces.js';
import type { RecordedEvent } from '../event-types.js';
import { iso } from '../../infra/time.js';

export type BounceRow = Selectable<BouncesTable>;

/** The fields an event may lack when its caller did not pass them. */
export interface MessageFacts {
  tag: string | null;
  metadata: Record<string, string>;
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const agentPart = (v: unknown) => {
  const o = obj(v);
  return { Name: str(o.Name), Company: str(o.Company), Family: str(o.Family) };
};

/** The published bounce record (docs/reference/bounces.md) with the message's Metadata. */
export function bouncePayload(b: BounceRow, facts: MessageFacts, includeContent: boolean): Record<string, unknown> {
  const complaint = b.type === 'SpamComplaint';
  const out: Record<string, unknown> = {
    RecordType: complaint ? 'SpamComplaint' : 'Bounce',
    ID: b.id,
    Type: b.type,
    TypeCode: b.type_code,
    Name: b.name,
    Tag: b.tag ?? facts.tag ?? '',
    MessageID: b.message_id ?? '',
    ServerID: b.server_id,
    MessageStream: b.stream_id,
    Description: b.description,
    Details: b.details,
    Email: b.email,
    From: b.from_email,
    BouncedAt: iso(b.bounced_at),
    DumpAvailable: b.dump !== null && b.dump !== '',
    Inactive: b.inactive === 1,
    CanActivate: complaint ? false : b.can_activate === 1,
    Subject: b.subject,
    Metadata: facts.metadata,
  };
  if (includeContent) out.Content = b.content ?? b.dump ?? '';
  return out;
}

/** A bounce event whose bounce row cannot be found (it should not happen): the event's own details. */
function bounceFromEvent(e: RecordedEvent, facts: MessageFacts): Record<string, unknown> {
  const d = obj(e.details);
  const complaint = e.type === 'SpamComplaint';
  return {
    RecordType: complaint ? 'SpamComplaint' : 'Bounce',
    ID: typeof d.BounceID === 'number' ? d.BounceID : 0,
    Type: complaint ? 'SpamComplaint' : str(d.Type, 'Unknown'),
    Tag: facts.tag ?? '',
    MessageID: e.messageId,
    ServerID: e.serverId,
    MessageStream: e.streamId,
    Description: str(d.Summary),
    Details: str(d.Details),
    Email: e.recipient,
    BouncedAt: iso(e.occurredAt),
    Inactive: complaint,
    CanActivate: false,
    Metadata: facts.metadata,
  };
}

function openFields(e: RecordedEvent, facts: MessageFacts): Record<string, unknown> {
  const d = obj(e.details);
  return {
    ServerID: e.serverId,
    MessageStream: e.streamId,
    FirstOpen: d.FirstOpen === true,
    Client: agentPart(d.Client),
    OS: agentPart(d.OS),
    Platform: str(d.Platform, 'Unknown'),
    UserAgent: str(d.UserAgent),
    ReadSeconds: typeof d.ReadSeconds === 'number' ? d.ReadSeconds : 0,
    Geo: obj(d.Geo),
    MessageID: e.messageId,
    ReceivedAt: iso(e.occurredAt),
    Tag: facts.tag ?? '',
    Recipient: e.recipient,
    Metadata: facts.metadata,
  };
}

/** The payload of one event for one webhook; `bounce` is the row named by details.BounceID, if any. */
export function eventPayload(e: RecordedEvent, facts: MessageFacts, bounce: BounceRow | undefined, includeContent: boolean): Record<string, unknown> {
  const d = obj(e.details);
  switch (e.type) {
    case 'Delivered':
      return {
        RecordType: 'Delivery',
        ServerID: e.serverId,
        MessageStream: e.streamId,
        MessageID: e.messageId,
        Recipient: e.recipient,
        Tag: facts.tag ?? '',
        DeliveredAt: iso(e.occurredAt),
        Details: str(d.DeliveryMessage, str(d.Details)),
        Metadata: facts.metadata,
      };
    case 'Bounced':
    case 'SpamComplaint':
      return bounce ? bouncePayload(bounce, facts, includeContent) : bounceFromEvent(e, facts);
    case 'Opened':
      return { RecordType: 'Open', ...openFields(e, facts) };
    case 'LinkClicked':
      return { RecordType: 'Click', ...openFields(e, facts), ClickLocation: str(d.ClickLocation, 'HTML'), OriginalLink: str(d.OriginalLink) };
    case 'SubscriptionChanged':
      return {
        RecordType: 'SubscriptionChange',
        MessageID: e.messageId,
        ServerID: e.serverId,
        MessageStream: e.streamId,
        ChangedAt: iso(e.occurredAt),
        Recipient: e.recipient,
        Origin: str(d.Origin, 'Recipient'),
        SuppressSending: d.SuppressSending === true,
        SuppressionReason: typeof d.SuppressionReason === 'string' ? d.SuppressionReason : null,
        Tag: facts.tag ?? '',
        Metadata: facts.metadata,
      };
    default:
      throw new Error(`no webhook payload for ${e.type}`);
  }
}
