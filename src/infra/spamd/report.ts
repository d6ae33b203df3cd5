// spamd's REPORT command (SPAMC/1.5, spamd/PROTOCOL of the SpamAssassin distribution): the verdict header as for
// SYMBOLS (spamc.ts) plus the report body, whose "Content analysis details" table lists each rule that hit
// with its points and description ("pts rule name description", continuation lines indented). The message
// checks show it (Mailpit's sa-check).
import { askSpamd, parseSpamdHead, type SpamdAddress } from './spamc.js';

export interface SpamReport {
  isSpam: boolean;
  score: number;
  threshold: number;
  rules: Array<{ points: number; name: string; description: string }>;
}

export async function reportSpam(addr: SpamdAddress, message: Buffer, timeoutMs = 30_000): Promise<SpamReport> {
  return parseReport(await askSpamd(addr, 'REPORT', message, timeoutMs, 'utf8'));
}

/** Parses "SPAMD/1.1 0 EX_OK\r\nSpam: False ; 2.1 / 5.0\r\n\r\n<report>". */
export function parseReport(text: string): SpamReport {
  const { isSpam, score, threshold, body } = parseSpamdHead(text);
  return { isSpam, score, threshold, rules: reportRules(body) };
}

/** The rows of the table after "Content analysis details"; a line that starts with spaces continues a description. */
export function reportRules(report: string): SpamReport['rules'] {
  const rules: SpamReport['rules'] = [];
  let inTable = false;
  for (const raw of report.split(/\r?\n/)) {
    if (!inTable) {
      if (raw.startsWith('Content analysis details')) inTable = true;
      continue;
    }
    const line = raw.trimEnd();
    if (!line.trim() || /^\s*pts\s+rule/.test(line) || /^-{3,}/.test(line)) continue;
    const row = /^\s?(-?\d+(?:\.\d+)?)\s+([A-Za-z0-9_]+)\s*(.*)$/.exec(line);
    if (row) rules.push({ points: Number(row[1]), name: row[2]!, description: row[3]!.trim() });
    else if (/^\s{2,}\S/.test(line) && rules.length) rules[rules.length - 1]!.description += ` ${line.trim()}`;
  }
  return rules;
}
