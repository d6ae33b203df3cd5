// StrippedTextReply: the new text of a reply, without the quoted message below it. Mail clients introduce
// the quote in a few published shapes, localized:
// - an attribution line, "On <date>, <name> wrote:" (Gmail, Apple Mail, Thunderbird), possibly wrapped over
//   two lines by Gmail, and its translations ("Am ... schrieb ...:", "Le ... a écrit :", "El ... escribió:");
// - Outlook's "-----Original Message-----" separator, or its header block "From: / Sent: / To: / Subject:"
//   (after a line of underscores in Outlook for Windows and on the web), also localized;
// - lines quoted with '>' (RFC 3676 4.5).
// Everything from the first such marker down is dropped; with no marker the whole text is the reply.

// Attribution lines are matched by scanning, not by one pattern each: "<lead> .{4,} <verb> .{0,120}:" as a
// regular expression backtracks over every split of a long line (cubic in its length), and a sender controls
// the lines. Each check below reads the line a constant number of times.

/** "On ..." and its translations, then whitespace. */
const LEAD = /^(On|Le|El|Il|Em|Op|Am|Den|På|W dniu)\s/i;
/** The verbs of the long form, each after whitespace; global, to list every place one stands. */
const VERB = /\s(wrote|a écrit|escribió|ha scritto|escreveu|schreef|schrieb|skrev|napisał\(a\)|napisał)/gi;
const GERMAN_LEAD = /^Am\s/i;
const GERMAN_VERB = /\sschrieb\s/gi;
const RUSSIAN_VERBS = ['пишет', 'написал(а)', 'написал', 'написала'];
/** Thunderbird's short form, at the very end of what precedes the colon. */
const SHORT_VERB = /\s(wrote|a écrit|escribió|schrieb|ha scritto)$/i;
const SHORT_MAX_NAME = 100;

/** The line without trailing whitespace and its final colon; null when it does not end with one. */
function beforeColon(line: string): string | null {
  const t = line.trimEnd();
  return t.endsWith(':') ? t.slice(0, -1) : null;
}

/**
 * `<lead> .{gap,} <verb> <tail>` where some occurrence of the verb leaves at least `gap` characters after the
 * lead and a tail whose length (after leading whitespace, when `trimTail`) lies in [minTail, maxTail].
 */
function leadAndVerb(s: string, lead: RegExp, verb: RegExp, o: { minTail: number; maxTail: number; trimTail: boolean }): boolean {
  const m = lead.exec(s);
  if (!m) return false;
  const gapFrom = m[0].length + 4;
  verb.lastIndex = 0;
  for (let v = verb.exec(s); v; v = verb.exec(s)) {
    const end = v.index + v[0].length;
    let from = end;
    if (o.trimTail) while (from < s.length && /\s/.test(s[from]!)) from++;
    const tail = s.length - from;
    if (v.index >= gapFrom && tail >= o.minTail && tail <= o.maxTail) return true;
  }
  return false;
}

/** "On <date>, <name> wrote:" in its languages (also two lines joined: Gmail wraps long ones). */
function longAttribution(line: string): boolean {
  const s = beforeColon(line);
  if (s === null) return false;
  return leadAndVerb(s, LEAD, VERB, { minTail: 0, maxTail: 120, trimTail: true }) || leadAndVerb(s, GERMAN_LEAD, GERMAN_VERB, { minTail: 1, maxTail: 200, trimTail: false });
}

function attribution(line: string): boolean {
  if (longAttribution(line)) return true;
  const s = beforeColon(line);
  if (s === null) return false;
  // Russian clients: "<date>, <name> пишет:" / "написал(а):"
  const r = s.trimEnd().toLowerCase();
  if (RUSSIAN_VERBS.some((v) => r.endsWith(v) && r.length - v.length >= 4)) return true;
  // Thunderbird's short form: "Jan Berg wrote:" (the name has no ':' or '>', and at most 100 characters).
  for (const c of /\s$/.test(s) ? [s, s.slice(0, -1)] : [s]) {
    if (c.length > SHORT_MAX_NAME + 20) continue;
    const v = SHORT_VERB.exec(c);
    if (!v) continue;
    const name = c.slice(0, v.index);
    if (name.length >= 1 && name.length <= SHORT_MAX_NAME && !/[:>]/.test(name)) return true;
  }
  return false;
}

/** Separators written by Outlook above the quoted message. */
const SEPARATOR = /^\s*-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Messaggio originale|Mensagem original|Oorspronkelijk bericht|Исходное сообщение|Forwarded message|Message transféré|Weitergeleitete Nachricht)\s*-{2,}\s*$/i;

/** First and second lines of Outlook's quoted header block: From / Sent in several languages. */
const HEADER_FROM = /^\s*\*?(From|Von|De|Van|Da|Od|От)\s?:\*?\s/i;
const HEADER_SENT = /^\s*\*?(Sent|Date|Gesendet|Datum|Envoyé|Enviado|Fecha|Verzonden|Inviato|Data|Отправлено|Wysłano)\s?:\*?\s/i;
const UNDERSCORES = /^\s*_{10,}\s*$/;

function markerAt(lines: string[], i: number): boolean {
  const line = lines[i];
  if (SEPARATOR.test(line) || UNDERSCORES.test(line)) return true;
  if (/^\s*>/.test(line)) return true;
  if (attribution(line)) return true;
  const next = lines[i + 1];
  if (next !== undefined && line.trim() !== '' && longAttribution(`${line.trim()} ${next.trim()}`)) return true;
  if (HEADER_FROM.test(line)) {
    for (let j = i + 1; j <= i + 3 && j < lines.length; j++) if (HEADER_SENT.test(lines[j])) return true;
  }
  return false;
}

export function stripReply(text: string | undefined | null): string {
  if (!text) return '';
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let cut = lines.length;
  for (let i = 0; i < lines.length; i++) {
    if (markerAt(lines, i)) {
      cut = i;
      break;
    }
  }
  // trimEnd, not replace(/\s+$/): that pattern is retried at every position of a run of whitespace, so a body of
  // a few hundred KB of spaces took seconds (quadratic).
  return lines.slice(0, cut).join('\n').trimEnd();
}
