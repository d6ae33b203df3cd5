// The published bounce types and codes (docs/reference/bounces.md).

export interface BounceTypeInfo {
  type: string;
  code: number;
  name: string;
  description: string;
  /** Makes the address inactive (suppressed in the message's stream). */
  inactive: boolean;
}

const T = (type: string, code: number, name: string, description: string, inactive = false): BounceTypeInfo => ({
  type,
  code,
  name,
  description,
  inactive,
});

export const BOUNCE_TYPES: Record<string, BounceTypeInfo> = Object.fromEntries(
  [
    T('HardBounce', 1, 'Hard bounce', 'The server was unable to deliver your message (ex: unknown user, mailbox not found).', true),
    T('Transient', 2, 'Message delayed', 'The server could not temporarily deliver your message (ex: Message is delayed due to network troubles).'),
    T('Unsubscribe', 16, 'Unsubscribe request', 'Unsubscribe or Remove request.'),
    T('Subscribe', 32, 'Subscribe request', 'Subscribe request from someone wanting to get added to the mailing list.'),
    T('AutoResponder', 64, 'Auto responder', 'Automatic email responder (ex: "Out of Office" or "On Vacation").'),
    T('AddressChange', 128, 'Address change', 'The recipient has requested an address change.'),
    T('DnsError', 256, 'DNS error', 'A temporary DNS error.'),
    T('SpamNotification', 512, 'Spam notification', 'The message was delivered, but was either blocked by the user, or classified as spam, bulk mail, or had rejected content.'),
    T('OpenRelayTest', 1024, 'Open relay test', 'The NDR is actually a test email message to see if the mail server is an open relay.'),
    T('Unknown', 2048, 'Unknown', 'Unable to classify the NDR.'),
    T('SoftBounce', 4096, 'Soft bounce/Undeliverable', 'Unable to temporarily deliver message (i.e. mailbox full, account disabled, exceeds quota, out of disk space).'),
    T('VirusNotification', 8192, 'Virus notification', 'The bounce is actually a virus notification warning about a virus/code infected message.'),
    T('ChallengeVerification', 16384, 'Spam challenge verification', 'The bounce is a challenge asking for verification you actually sent the email.'),
    T('BadEmailAddress', 100000, 'Invalid email address', 'The address is not a valid email address.', true),
    T('SpamComplaint', 100001, 'Spam complaint', 'The subscriber explicitly marked this message as spam.', true),
    T('ManuallyDeactivated', 100002, 'Manually deactivated', 'The email was manually deactivated.', true),
    T('Unconfirmed', 100003, 'Registration not confirmed', 'The subscriber has not clicked on the confirmation link upon registration or import.'),
    T('Blocked', 100006, 'ISP block', 'Blocked from this ISP due to content or blacklisting.'),
    T('SMTPApiError', 100007, 'SMTP API error', 'An error occurred while accepting an email through the SMTP API.'),
    T('InboundError', 100008, 'Processing failed', 'Unable to deliver inbound message to destination inbound hook.'),
    T('DMARCPolicy', 100009, 'DMARC Policy', 'Email rejected due DMARC Policy.'),
    T('TemplateRenderingFailed', 100010, 'Template rendering failed', 'An error occurred while attempting to render your template.'),
  ].map((t) => [t.type, t]),
);

export function bounceType(type: string): BounceTypeInfo {
  return BOUNCE_TYPES[type] ?? BOUNCE_TYPES.Unknown;
}
