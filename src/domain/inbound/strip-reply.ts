// StrippedTextReply: the new text of a reply, without the quoted message below it. Mail clients introduce
// the quote in a few published shapes, localized:
// - an attribution line, "On <date>, <name> wrote:" (Gmail, Apple Mail, Thunderbird), possibly wrapped over
//   two lines by Gmail, and its translations ("Am ... schrieb ...:", "Le ... a écrit :", "El ... escribió:");
// - Outlook's "-----Original Message-----" separator, or its header block "From: / Sent: / To: / Subject:"
//   (after a line of underscores in Outlook for Windows and on the web), also localized;
// - lines quoted with '>' (RFC 3676 4.5).
// Everything from the first such marker down is dropped; with no marker the whole text is the reply.

/** Attribution lines, tested on one line or on two joined lines (Gmail wraps long ones). */
const ATTRIBUTION: RegExp[] = [
  /^(On|Le|El|Il|Em|Op|Am|Den|På|W dniu)\s.{4,}\s(wrote|a écrit|escribió|ha scritto|escreveu|schreef|schrieb|skrev|napisał\(a\)|napisał)\s*.{0,120}:\s*$/i,
  // Apple Mail in German: "Am 03.02.2024 um 10:15 schrieb Jan Berg <jan@example.org>:"
  /^Am\s.{4,}\sschrieb\s.{1,200}:\s*$/i,
  // Russian clients: "<date>, <name> пишет:" / "написал(а):"
  /^.{4,}(пишет|написал\(а\)|написал|написала)\s*:\s*$/i,
  // Thunderbird's short form: "Jan Berg wrote:"
  /^[^:>]{1,100}\s(wrote|a écrit|escribió|schrieb|ha scritto)\s?:\s*$/i,
];

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
  if (ATTRIBUTION.some((re) => re.test(line))) return true;
  const next = lines[i + 1];
  if (next !== undefined && line.trim() !== '' && ATTRIBUTION.slice(0, 2).some((re) => re.test(`${line.trim()} ${next.trim()}`))) return true;
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
  return lines.slice(0, cut).join('\n').replace(/\s+$/, '');
}
