// The diagnostic-text rule table: phrases common MTAs and mailbox providers put in SMTP replies and
// bounce messages, mapped to bounce types. Consulted after the enhanced status code (classify.ts) and for
// plain-text bounces that carry no machine-readable status at all. Order matters: the first match wins, so
// the most specific phrases come first (a "blocked as spam" reply is about a blocklist or content, not
// about the mailbox).

type Rule = [RegExp | ((text: string) => boolean), string];

export const TEXT_RULES: Rule[] = [
  // Authentication policy (Gmail 5.7.26, Yahoo, Microsoft: "...due to the domain's DMARC policy").
  [/\bdmarc\b/i, 'DMARCPolicy'],
  [/\b(virus|malware|infected|trojan)\b/i, 'VirusNotification'],
  // Blocklists and reputation (Spamhaus, Barracuda, Microsoft "S3150", Gmail 5.7.28 "unusual rate").
  [
    /\b(black ?list(ed)?|block ?list(ed)?|deny ?list(ed)?|spamhaus|barracuda|spamcop|sorbs|dnsbl|rbl|listed (at|in|on|by)|poor reputation|ip reputation|reputation of|banned sending ip|client host \S+ blocked|unusual rate of unsolicited|s3150)/i,
    'Blocked',
  ],
  // Microsoft's "... blocked using AS(1234)"-style replies: an AS number and "block" later on the same line.
  [blockedAs, 'Blocked'],
  // Content judged to be spam.
  [
    /\b(spam|junk ?mail|bulk mail|unsolicited|content (was |has been )?(rejected|refused|filtered)|message (content )?(was )?(rejected|blocked|refused) (as|due|because)|looks like spam|suspicious|phish)/i,
    'SpamNotification',
  ],
  // Quota and disabled accounts first: "account disabled" is a soft bounce (types.ts), although "account"
  // phrases otherwise mean an unknown user.
  [
    /(mailbox|inbox|mail ?box|account|user|recipient)('s)? (is |has )?(full|over ?quota|exceeded|out of (storage|space))|over ?quota|quota (exceeded|exceed)|exceeds? (his |her |their |the )?(storage|quota)|insufficient (system )?storage|out of (disk )?space|storage (allocation|limit)|mailbox size limit/i,
    'SoftBounce',
  ],
  [
    /(account|mailbox|user|recipient)( \S+)? (is |has been )?(disabled|inactive|suspended|locked|blocked|deactivated|frozen)|(disabled|inactive|suspended) (account|mailbox|user)|\(554\.30\)/i,
    'SoftBounce',
  ],
  [/message (size )?(exceeds|is too (large|big))|message too (large|big)|size limit exceeded|exceeds? (the )?(maximum )?(message )?size/i, 'SoftBounce'],
  // Unknown recipients, in the wording of Postfix, Exim, Sendmail, Exchange, Gmail, Yahoo, Outlook.com,
  // qmail, Courier and friends.
  [
    /(user|recipient|mailbox|address|account)( name)? (is )?(unknown|not found|not exist|does not exist|doesn'?t exist|not valid|invalid|unavailable|no longer (exists|valid|available|active))|unknown (user|recipient|mailbox|address|local[- ]part)|no such (user|mailbox|recipient|address|account|person)|invalid (recipient|mailbox|address|user)|user not (found|local)|doesn'?t have an? \S+ account|does not have an? \S+ account|unrouteable address|mailbox unavailable|not a valid (mailbox|recipient|user)|resolver\.adr\.recipnotfound|recipientnotfound|recipient address rejected: (access denied|user unknown|undeliverable address)|address (not found|rejected)|undeliverable address|no mailbox (here|by that name)|account (has been |is )?(closed|deleted|terminated|removed|expired)|email account that you tried to reach does not exist|not our customer|bad destination mailbox/i,
    'HardBounce',
  ],
  // Name resolution.
  [
    /host (or domain name )?not found|domain (name )?not found|name service error|no mx|mx (lookup|record)|dns (error|failure|lookup|problem)|unrouteable mail domain|domain (does not|doesn'?t) exist|nxdomain|could not resolve|unable to resolve|non-existent hosts?|all relevant mx records|no route to host|host unknown/i,
    'DnsError',
  ],
  // Mail the recipient's system refuses for policy reasons unrelated to content.
  [
    /relay(ing)? (access )?(denied|not permitted|prohibited)|not permitted to relay|access denied|rejected by policy|(policy|security) (reasons|violation|rejection)|administrative prohibition|not authori[sz]ed|sender (address )?rejected|\bblocked\b|anti-spoofing|permanently deferred|\[ts[s]?\d+\]/i,
    'Blocked',
  ],
  // Temporary conditions.
  [/try (again )?later|temporar(il)?y|greylist|graylist|deferred|timed? ?out|connection (refused|reset|dropped|lost)|too many (connections|messages|recipients)|rate limit|throttl|resources temporarily/i, 'Transient'],
];

/**
 * /\bas\(\d+\)\s*(?=.*block)/i without its lookahead, which read the rest of the line again after every
 * "AS(n)" (quadratic in a stranger's line): per line, the first AS number, then "block" anywhere after it.
 */
function blockedAs(text: string): boolean {
  for (const line of text.split(/[\n\r\u2028\u2029]/)) {
    const m = /\bas\(\d+\)/i.exec(line);
    if (m && /block/i.test(line.slice(m.index + m[0].length))) return true;
  }
  return false;
}

export function textRule(text: string): string | null {
  if (!text) return null;
  for (const [rule, type] of TEXT_RULES) if (typeof rule === 'function' ? rule(text) : rule.test(text)) return type;
  return null;
}
