// The spam check (Mailpit's GET /api/v1/message/{ID}/sa-check): SpamAssassin's score and the rules that hit,
// from the spamd that scores inbound mail (MAILROOM_SPAMD), in Mailpit's shape. As Mailpit: the message is
// spam at a score of 5 or more, scores are cut to one decimal (math.Floor(n*10)/10), and a spamd that cannot be
// reached is an answer with Error set, not a failed request. Without a spamd configured there is nothing to
// ask: SpamNotConfigured, which the edges turn into Mailpit's text for that case.
import type { AppContext } from '../app-context.js';
import { reportSpam } from '../../infra/spamd/report.js';
import { messageSource, type MessageScope } from './message-source.js';

export interface SpamCheckResponse {
  IsSpam: boolean;
  Error: string;
  Score: number;
  Rules: Array<{ Score: number; Name: string; Description: string }> | null;
}

/** Mailpit's error text when no SpamAssassin service is set (spamassassin.Check), with how to set one here. */
export const SPAM_NOT_CONFIGURED = 'no SpamAssassin service defined (set MAILROOM_SPAMD to the host:port of a spamd to enable the spam check)';

export class SpamNotConfigured extends Error {
  constructor() {
    super(SPAM_NOT_CONFIGURED);
  }
}

const MAILPIT_SPAM_SCORE = 5;
const round1dm = (n: number) => Math.floor(n * 10) / 10;

export const spamCheckConfigured = (ctx: Pick<AppContext, 'config'>): boolean => ctx.config.spamd !== null;

export async function spamCheck(ctx: AppContext, scope: MessageScope, idOrLatest: string, timeoutMs = 8_000): Promise<SpamCheckResponse> {
  const spamd = ctx.config.spamd;
  if (!spamd) throw new SpamNotConfigured();
  // Not found is a 404 before spamd is asked.
  const raw = await messageSource(ctx, scope, idOrLatest);
  try {
    const r = await reportSpam(spamd, raw, timeoutMs);
    return {
      IsSpam: r.score >= MAILPIT_SPAM_SCORE,
      Error: '',
      Score: round1dm(r.score),
      Rules: r.rules.map((rule) => ({ Score: round1dm(rule.points), Name: rule.name, Description: rule.description })),
    };
  } catch (err) {
    return { IsSpam: false, Error: (err as Error).message || String(err), Score: 0, Rules: null };
  }
}
