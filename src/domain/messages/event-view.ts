// The API's MessageEvents: a view over the stored events, not a change to what is stored (the console shows
// the fuller timeline: Processed, complaints by name, TLS, the open's client).
//
// The hosted service's event types are Delivered, Transient, Opened, Bounced, SubscriptionChanged and
// LinkClicked, and every Details value is a string (its outbound message details example; its official
// Python client validates Type against that enum and each Details field as a string, BounceID included).
// So: Processed is left out (the processing time is the record's ReceivedAt, the specification's "Message
// record"); a spam complaint is a Bounced event of the SpamComplaint bounce; each type carries its documented
// Details fields, as strings, and nothing else.
import { iso } from '../../infra/time.js';

export interface StoredEvent {
  type: string;
  recipient: string;
  occurred_at: number;
  details: Record<string, unknown>;
}

export type HostedEventType = 'Delivered' | 'Transient' | 'Opened' | 'Bounced' | 'SubscriptionChanged' | 'LinkClicked';

export interface HostedMessageEvent {
  Recipient: string;
  Type: HostedEventType;
  ReceivedAt: string;
  Details: Record<string, string>;
}

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  // The hosted service writes its booleans in Details as .NET prints them.
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return '';
}

function nameOf(v: unknown): string {
  return v && typeof v === 'object' ? text((v as { Name?: unknown }).Name) : '';
}

/** "Email opened with Chrome on Windows", as far as the user agent told. */
function hitSummary(verb: string, d: Record<string, unknown>): string {
  const client = nameOf(d.Client);
  const os = nameOf(d.OS);
  return `${verb}${client ? ` with ${client}` : ''}${os ? ` on ${os}` : ''}`;
}

function shapeDetails(type: HostedEventType, stored: string, d: Record<string, unknown>): Record<string, string> {
  switch (type) {
    case 'Delivered':
    case 'Transient':
      return { DeliveryMessage: text(d.DeliveryMessage), DestinationServer: text(d.DestinationServer), DestinationIP: text(d.DestinationIP) };
    case 'Bounced':
      return { Summary: text(d.Summary) || (stored === 'SpamComplaint' ? 'The subscriber explicitly marked this message as spam.' : ''), BounceID: text(d.BounceID) };
    case 'Opened':
      return { Summary: hitSummary('Email opened', d) };
    case 'LinkClicked':
      return { Summary: hitSummary('Link clicked', d), Link: text(d.OriginalLink), ClickLocation: text(d.ClickLocation) };
    case 'SubscriptionChanged':
      return { Origin: text(d.Origin), SuppressSending: text(d.SuppressSending), SuppressionReason: text(d.SuppressionReason) };
  }
}

const HOSTED_TYPE: Record<string, HostedEventType | undefined> = {
  Delivered: 'Delivered',
  Transient: 'Transient',
  Opened: 'Opened',
  Bounced: 'Bounced',
  SpamComplaint: 'Bounced',
  SubscriptionChanged: 'SubscriptionChanged',
  LinkClicked: 'LinkClicked',
};

export function hostedMessageEvents(events: StoredEvent[]): HostedMessageEvent[] {
  const out: HostedMessageEvent[] = [];
  for (const e of events) {
    const type = HOSTED_TYPE[e.type];
    if (!type) continue; // Processed: the record's ReceivedAt
    out.push({ Recipient: e.recipient, Type: type, ReceivedAt: iso(e.occurred_at)!, Details: shapeDetails(type, e.type, e.details) });
  }
  return out;
}
