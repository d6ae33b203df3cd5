// GET /api/v1/info and /webui in Mailpit's shapes (its AppInformation and WebUIConfiguration). The counts are
// the server's; the runtime figures are this process's. The relay is the operator's MAILROOM_RELEASE_RELAY_*
// (never its password); chaos does not exist here: failures are tested with the bounce-testing domain.
import type { AppContext } from '../../../domain/app-context.js';
import type { MailpitServer } from '../../../domain/mailpit/filters.js';
import { listMessages } from '../../../domain/mailpit/listing.js';
import { tagCounts } from '../../../domain/mailpit/tags.js';

const VERSION = 'mailroom';

export async function infoOf(ctx: AppContext, server: MailpitServer) {
  const [list, tags] = await Promise.all([listMessages(ctx, server, { start: 0, limit: 0 }), tagCounts(ctx, server)]);
  return {
    Version: VERSION,
    // Mailpit's answer when it does not look for a newer release; mailroom never calls out for one.
    LatestVersion: 'disabled',
    Database: ctx.database.dialect,
    DatabaseSize: 0,
    Messages: list.total,
    Unread: list.unread,
    Tags: Object.fromEntries(tags),
    RuntimeStats: {
      Uptime: Math.floor(process.uptime()),
      Memory: process.memoryUsage().rss,
      MessagesDeleted: 0,
      SMTPAccepted: 0,
      SMTPAcceptedSize: 0,
      SMTPRejected: 0,
      SMTPIgnored: 0,
    },
  };
}

export async function webUiOf(ctx: AppContext, server: MailpitServer) {
  const row = await ctx.db.selectFrom('servers').select('name').where('id', '=', server.id).executeTakeFirst();
  const relay = ctx.config.releaseRelay;
  const allowed = relay?.allowedRecipients.join(', ') ?? '';
  return {
    Label: row?.name ?? '',
    MessageRelay: {
      Enabled: relay !== null,
      SMTPServer: relay ? `${relay.host}:${relay.port}` : '',
      ReturnPath: '',
      AllowedRecipients: allowed,
      BlockedRecipients: '',
      OverrideFrom: '',
      PreserveMessageIDs: false,
      RecipientAllowlist: allowed,
    },
    SpamAssassin: ctx.config.spamd !== null,
    ChaosEnabled: false,
    DuplicatesIgnored: false,
    HideDeleteAllButton: false,
  };
}
