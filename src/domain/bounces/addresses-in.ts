// The addresses a text mentions: `local@label.label...`, where local is RFC 5322 atext and dots, and the domain
// two or more labels of letters, digits and hyphens. Found by scanning from each '@' rather than with the
// pattern /[atext.]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/g, which tries every position of a long run of local-part
// characters and reads the run to its end each time (quadratic; a bounce or reply is a stranger's text).
// Same results as that pattern: leftmost-longest matches, none overlapping.

const LOCAL = /[a-z0-9.!#$%&'*+/=?^_`{|}~-]/i;
const LABEL = /[a-z0-9-]/i;

export function addressesIn(text: string): string[] {
  const found: string[] = [];
  let from = 0; // where the previous match ended: a match starts no earlier
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > from && LOCAL.test(text[start - 1]!)) start--;
    if (start === at) continue;
    // The domain: labels joined by single dots, at least two, as long as they go.
    let end = at + 1;
    let labels = 0;
    let last = at + 1; // end of the last complete label
    for (;;) {
      let i = end;
      while (i < text.length && LABEL.test(text[i]!)) i++;
      if (i === end) break;
      labels += 1;
      last = i;
      if (text[i] !== '.') break;
      end = i + 1;
    }
    if (labels < 2) continue;
    found.push(text.slice(start, last));
    from = last;
    at = last - 1;
  }
  return found;
}
