// Validation of the writable server fields, shared by PUT /server and the account's /servers API.
import type { Updateable } from 'kysely';
import type { ServersTable } from '../../infra/db/tables/servers.js';
import { toFlag } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';

export const SERVER_COLORS = ['Purple', 'Blue', 'Turquoise', 'Green', 'Red', 'Orange', 'Yellow', 'Grey'] as const;

/**
 * A color matched regardless of case; null when it is none. The value is stored and answered as the client
 * wrote it ("blue" answers "blue"), as the hosted service does: the Ruby gem's suite reads back the spelling
 * it sent. The Python client sends and reads the published spelling (its ServerColor enumeration), so a
 * server it names is answered in that spelling too.
 */
export function isServerColor(given: string): boolean {
  const lower = given.toLowerCase();
  return SERVER_COLORS.some((x) => x.toLowerCase() === lower);
}
export const TRACK_LINKS = ['None', 'HtmlAndText', 'HtmlOnly', 'TextOnly'] as const;

export interface ServerSettingsInput {
  Name?: string;
  Color?: string;
  SmtpApiActivated?: boolean;
  RawEmailEnabled?: boolean;
  InboundHookUrl?: string;
  BounceHookUrl?: string;
  OpenHookUrl?: string;
  DeliveryHookUrl?: string;
  ClickHookUrl?: string;
  SpamComplaintHookUrl?: string;
  PostFirstOpenOnly?: boolean;
  InboundDomain?: string;
  InboundSpamThreshold?: number;
  TrackOpens?: boolean;
  TrackLinks?: string;
  IncludeBounceContentInHook?: boolean;
  EnableSmtpApiErrorHooks?: boolean;
  RetentionDays?: number;
  /** mailroom extension, checked against the configuration by ipPoolSetting (streams/ip-pool-setting.ts). */
  IpPool?: string | null;
  /** mailroom extension: a Sandbox server takes any From address (a test inbox, as Mailpit does). */
  SandboxAcceptsAnyFrom?: boolean;
}

type Patch = Updateable<ServersTable>;

/** Turns validated API input into a row patch; throws ApiError with the published code on a bad value. */
export function serverSettingsPatch(input: ServerSettingsInput): Patch {
  const p: Patch = {};
  if (input.Name !== undefined) {
    const name = input.Name.trim();
    if (!name) throw new ApiError(ErrorCode.ServerNameMissing, 'Server name is required.');
    if (name.length > 255) throw new ApiError(ErrorCode.ServerNameMissing, 'Server name must be at most 255 characters.');
    p.name = name;
  }
  if (input.Color !== undefined) {
    const c = input.Color.trim();
    if (!isServerColor(c)) throw new ApiError(ErrorCode.ServerInvalidColor, `Color must be one of ${SERVER_COLORS.join(', ')}.`);
    p.color = c;
  }
  if (input.TrackLinks !== undefined) {
    const t = TRACK_LINKS.find((x) => x.toLowerCase() === input.TrackLinks!.toLowerCase());
    if (!t) throw new ApiError(ErrorCode.InvalidRequestFields, `TrackLinks must be one of ${TRACK_LINKS.join(', ')}.`);
    p.track_links = t;
  }
  if (input.RetentionDays !== undefined) {
    if (!Number.isInteger(input.RetentionDays) || input.RetentionDays < 7 || input.RetentionDays > 365)
      throw new ApiError(ErrorCode.InvalidRequestFields, 'RetentionDays must be a whole number from 7 to 365.');
    p.retention_days = input.RetentionDays;
  }
  if (input.InboundSpamThreshold !== undefined) {
    if (!Number.isInteger(input.InboundSpamThreshold) || input.InboundSpamThreshold < 0 || input.InboundSpamThreshold > 30)
      throw new ApiError(ErrorCode.InvalidRequestFields, 'InboundSpamThreshold must be a whole number from 0 to 30.');
    p.inbound_spam_threshold = input.InboundSpamThreshold;
  }
  if (input.InboundDomain !== undefined) p.inbound_domain = input.InboundDomain.trim().toLowerCase();
  const flags: [keyof ServerSettingsInput, keyof Patch][] = [
    ['SmtpApiActivated', 'smtp_api_activated'],
    ['RawEmailEnabled', 'raw_email_enabled'],
    ['PostFirstOpenOnly', 'post_first_open_only'],
    ['TrackOpens', 'track_opens'],
    ['IncludeBounceContentInHook', 'include_bounce_content_in_hook'],
    ['EnableSmtpApiErrorHooks', 'enable_smtp_api_error_hooks'],
    ['SandboxAcceptsAnyFrom', 'sandbox_any_from'],
  ];
  for (const [k, col] of flags) if (input[k] !== undefined) (p as any)[col] = toFlag(input[k] as boolean);
  // The outbound hook URLs are not columns of the server: they drive the default stream's webhooks
  // (legacy-hooks.ts, which also runs the address guard on every hook field). InboundHookUrl is the
  // server's own: inbound processing posts each inbound message there (domain/inbound).
  if (input.InboundHookUrl !== undefined) p.inbound_hook_url = input.InboundHookUrl.trim();
  return p;
}
