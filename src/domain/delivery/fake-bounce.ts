// What the bounce-testing domain (bounce-testing.ts) "answers": nothing is composed, looked up or sent. Each
// recipient gets a result carrying the bounce type its address names, and the delivery outcome (outcome.ts)
// records it through recordBounce, the path of a real bounce (bounce record, Bounced event and its webhook,
// statistics, the suppression of a HardBounce), in the same group commit as every other outcome.
import { localReply } from '../../infra/smtp-client/replies.js';
import { fromJson } from '../../infra/db/util.js';
import { bounceType } from '../bounces/types.js';
import { fakeBounceType } from './bounce-testing.js';
import type { SendResult } from './transport.js';

export function fakeBounceResults(recipients: ReadonlyArray<{ email: string }>, storedHeaders: string, domain: string): SendResult[] {
  const headers = fromJson<Array<{ Name: string; Value: string }>>(storedHeaders, []);
  return recipients.map((r) => {
    const type = fakeBounceType(r.email, headers);
    const text = `Test bounce (${type}) from the bounce-testing domain ${domain}; nothing was sent. ${bounceType(type).description}`;
    return { ok: false, reply: localReply(550, '5.0.0', text), server: domain, ip: '', network: false, stage: 'local', fakeBounce: type };
  });
}
