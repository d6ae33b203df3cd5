// The value sets and field types of the hosted service's answers as its API reference publishes them, which
// its official Python client enforces (typed models: an enum field outside its set, a string where a number
// is published, a missing required key each raise a validation error). The Node client declares most of
// these fields as plain `string` or `object` (declared-shape.ts checks only what it declares), so these
// rules are written here from the published reference (docs/reference/*.md, shared/spec/reference.md).
// Issue 27: GET /messages/outbound/{id}/details failed in the Python client on `Processed` and
// `SpamComplaint` events and a numeric BounceID, which the Node client let through.

export const HOSTED = {
  MessageEventType: ['Delivered', 'Transient', 'Opened', 'Bounced', 'SubscriptionChanged', 'LinkClicked'],
  MessageStatus: ['Sent', 'Processed', 'Queued', 'Blocked', 'Failed', 'Scheduled'],
  TrackLinks: ['None', 'HtmlAndText', 'HtmlOnly', 'TextOnly'],
  BounceType: [
    'HardBounce', 'Transient', 'Unsubscribe', 'Subscribe', 'AutoResponder', 'AddressChange', 'DnsError', 'SpamNotification',
    'OpenRelayTest', 'Unknown', 'SoftBounce', 'VirusNotification', 'ChallengeVerification', 'BadEmailAddress', 'SpamComplaint',
    'ManuallyDeactivated', 'Unconfirmed', 'Blocked', 'SMTPApiError', 'InboundError', 'DMARCPolicy', 'TemplateRenderingFailed',
  ],
  ServerColor: ['Purple', 'Blue', 'Turquoise', 'Green', 'Red', 'Orange', 'Yellow', 'Grey'],
  DeliveryType: ['Live', 'Sandbox'],
  MessageStreamType: ['Transactional', 'Broadcasts', 'Inbound'],
  UnsubscribeHandlingType: ['None', 'Postmark', 'Custom'],
  SuppressionReason: ['HardBounce', 'SpamComplaint', 'ManualSuppression'],
  SuppressionOrigin: ['Recipient', 'Customer', 'Admin'],
  TemplateType: ['Standard', 'Layout'],
  BulkStatus: ['Accepted', 'Processing', 'Completed', 'Failed'],
} as const;

type Kind = 'string' | 'number' | 'boolean' | 'array' | 'object' | keyof typeof HOSTED;
/** Published field -> its type or value set; a trailing `?` marks a field that may be absent or null. */
type Rules = Record<string, `${Kind}` | `${Kind}?`>;

const RULES: Record<string, Rules> = {
  OutboundMessage: { MessageID: 'string', MessageStream: 'string', Status: 'MessageStatus', TrackLinks: 'TrackLinks', TrackOpens: 'boolean', Sandboxed: 'boolean', Recipients: 'array', To: 'array', ReceivedAt: 'string', Subject: 'string', From: 'string' },
  MessageEvent: { Recipient: 'string', Type: 'MessageEventType', ReceivedAt: 'string', Details: 'object?' },
  Bounce: { ID: 'number', Type: 'BounceType', TypeCode: 'number', ServerID: 'number', MessageID: 'string', Email: 'string', DumpAvailable: 'boolean', Inactive: 'boolean', CanActivate: 'boolean', Subject: 'string' },
  Server: { ID: 'number', Color: 'ServerColor', DeliveryType: 'DeliveryType', TrackLinks: 'TrackLinks', ApiTokens: 'array', InboundSpamThreshold: 'number', InboundHash: 'string', ServerLink: 'string' },
  MessageStream: { ID: 'string', ServerID: 'number', MessageStreamType: 'MessageStreamType', CreatedAt: 'string', SubscriptionManagementConfiguration: 'object' },
  SubscriptionManagementConfiguration: { UnsubscribeHandlingType: 'UnsubscribeHandlingType' },
  Suppression: { EmailAddress: 'string', SuppressionReason: 'SuppressionReason', Origin: 'SuppressionOrigin', CreatedAt: 'string' },
  Template: { TemplateId: 'number', TemplateType: 'TemplateType' },
  BulkSendingResponse: { ID: 'string', Id: 'string', Status: 'BulkStatus', SubmittedAt: 'string' },
};

function fits(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'string':
    case 'number':
    case 'boolean':
      return typeof v === kind;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    default:
      return (HOSTED[kind] as readonly string[]).includes(v as string);
  }
}

/** Problems of `value` against the published rules of `name` (empty when it conforms). */
export function hostedProblems(name: keyof typeof RULES, value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [`${name}: not an object`];
  const v = value as Record<string, unknown>;
  const out: string[] = [];
  for (const [field, rule] of Object.entries(RULES[name]!)) {
    const optional = rule.endsWith('?');
    const kind = rule.replace(/\?$/, '') as Kind;
    if (v[field] === undefined || v[field] === null) {
      if (!optional) out.push(`${name}.${field} missing`);
    } else if (!fits(kind, v[field])) out.push(`${name}.${field}: ${JSON.stringify(v[field])?.slice(0, 60)} is not ${kind}`);
  }
  if (name === 'MessageEvent' && v.Details) {
    // Every Details value is a string in the published example, BounceID included.
    for (const [k, d] of Object.entries(v.Details as Record<string, unknown>)) if (typeof d !== 'string') out.push(`MessageEvent.Details.${k}: ${JSON.stringify(d)} is not string`);
  }
  return out;
}

/** Keys every day of a statistics series carries (the Python client requires each, zero or not). */
export const DAY_KEYS: Record<string, string[]> = {
  bounces: ['HardBounce', 'SMTPApiError', 'SoftBounce', 'Transient'],
  sends: ['Sent'],
  spam: ['SpamComplaint'],
  tracked: ['Tracked'],
  opens: ['Opens', 'Unique'],
  'opens/platforms': ['Desktop', 'Mobile', 'Unknown', 'WebMail'],
  clicks: ['Clicks', 'Unique'],
  'clicks/platforms': ['Desktop', 'Mobile', 'Unknown'],
  'clicks/location': ['HTML', 'Text'],
};

export function dayProblems(series: string, answer: { Days: Array<Record<string, unknown>> }): string[] {
  const out: string[] = [];
  for (const day of answer.Days) {
    if (typeof day.Date !== 'string') out.push(`${series}: a day without Date`);
    for (const k of DAY_KEYS[series] ?? []) if (typeof day[k] !== 'number') out.push(`${series} ${String(day.Date)}: ${k} is ${JSON.stringify(day[k])}`);
  }
  return out;
}
