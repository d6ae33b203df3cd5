// GET /api/v1/info and /webui in Mailpit's shapes (its AppInformation and WebUIConfiguration). The counts are
// the server's; the runtime figures are this process's. Relay (release) and chaos do not exist here: a
// Sandbox message is never delivered, and failures are tested with the bounce-testing domain instead.
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
    Database: ctx.dialect,
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
  return {
    Label: row?.name ?? '',
    MessageRelay: {
      Enabled: false,
      SMTPServer: '',
      ReturnPath: '',
      AllowedRecipients: '',
      BlockedRecipients: '',
      OverrideFrom: '',
      PreserveMessageIDs: false,
      RecipientAllowlist: '',
    },
    SpamAssassin: ctx.config.spamd !== null,
    ChaosEnabled: false,
    DuplicatesIgnored: false,
    HideDeleteAllButton: false,
  };
}
