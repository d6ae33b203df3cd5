import type { Config } from '../../infra/config-types.js';
import type { Selectable } from 'kysely';
import type { ServersTable } from '../../infra/db/tables/servers.js';
import { fromFlag } from '../../infra/db/util.js';
import { maskedHookUrl } from './inbound-hook-secret.js';
import type { LegacyHooksView } from './legacy-hooks.js';

type ServerRow = Selectable<ServersTable>;

/** The server as the API shows it (docs/reference/servers.md). Token values are never stored, so ApiTokens
 * carries only the tokens the caller was just given (creation) and otherwise hints of the stored ones. */
/** `hooks`: the default stream's webhooks seen as the legacy hook fields (legacy-hooks.ts readLegacyHooks). */
export function serverView(row: ServerRow, config: Config, apiTokens: string[], hooks?: LegacyHooksView) {
  return {
    ID: row.id,
    Name: row.name,
    ApiTokens: apiTokens,
    // As the client wrote it (server-settings.ts isServerColor).
    Color: row.color,
    SmtpApiActivated: fromFlag(row.smtp_api_activated),
    RawEmailEnabled: fromFlag(row.raw_email_enabled),
    DeliveryType: row.delivery_type,
    ServerLink: `${config.publicUrl}/servers/${row.id}`,
    InboundAddress: `${row.inbound_hash}@${config.inboundDomain}`,
    // Its password, if any, as a mask (inbound-hook-secret.ts).
    InboundHookUrl: maskedHookUrl(row),
    BounceHookUrl: hooks?.BounceHookUrl ?? '',
    OpenHookUrl: hooks?.OpenHookUrl ?? '',
    DeliveryHookUrl: hooks?.DeliveryHookUrl ?? '',
    ClickHookUrl: hooks?.ClickHookUrl ?? '',
    SpamComplaintHookUrl: hooks?.SpamComplaintHookUrl ?? '',
    PostFirstOpenOnly: fromFlag(row.post_first_open_only),
    InboundDomain: row.inbound_domain,
    InboundHash: row.inbound_hash,
    InboundSpamThreshold: row.inbound_spam_threshold,
    TrackOpens: fromFlag(row.track_opens),
    TrackLinks: row.track_links,
    IncludeBounceContentInHook: fromFlag(row.include_bounce_content_in_hook),
    EnableSmtpApiErrorHooks: fromFlag(row.enable_smtp_api_error_hooks),
    RetentionDays: row.retention_days,
    /** mailroom extension: the IP pool the server's mail leaves from (README, "Delivery"); null: none. */
    IpPool: row.ip_pool ?? null,
    /** mailroom extension: a Sandbox server takes any From address (README, "Use mailroom as your test inbox"). */
    SandboxAcceptsAnyFrom: fromFlag(row.sandbox_any_from),
  };
}
