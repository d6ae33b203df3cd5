// Text side of link tracking: bare http(s) URLs in a plain-text part. Trailing punctuation that ends a
// sentence is not part of the link ("see https://x.example/a."), and a closing parenthesis is kept only
// when the URL itself opened one (Wikipedia-style links).

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;

export function rewriteTextLinks(text: string, rewrite: (link: string) => string | null): string {
  return text.replace(URL_IN_TEXT, (found) => {
    let link = found;
    for (;;) {
      const last = link[link.length - 1];
      if (/[.,;:!?\]}>]/.test(last)) link = link.slice(0, -1);
      else if (last === ')' && (link.match(/\(/g)?.length ?? 0) < (link.match(/\)/g)?.length ?? 0)) link = link.slice(0, -1);
      else break;
    }
    const url = rewrite(link);
    return url === null ? found : url + found.slice(link.length);
  });
}
