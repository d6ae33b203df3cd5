// What the structure tests read: the TypeScript files under src/ and their lines of code, comments left out,
// matched against a rule's pattern. Rules that imports do not show (who may write a table, who may name the
// dialect tag) are read from the source text this way.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const SRC = new URL('../../src', import.meta.url).pathname;

/** The .ts files under `dir` (a folder of src/, default all of it), walked in full. */
export function sourceFiles(dir = SRC): string[] {
  const files: string[] = [];
  (function walk(d: string) {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) files.push(p);
    }
  })(dir);
  return files;
}

/** A line without its comment: a whole-line comment is empty, a trailing `// ...` is cut. */
export const codeOf = (line: string) => line.replace(/^\s*(\/\/|\*|\/\*).*$/, '').replace(/\s\/\/\s.*$/, '');

/** Lines of code of `files` matching `re`, as "path:line: text" (path under src/), outside the `allowed` prefixes. */
export function offenders(files: string[], re: RegExp, allowed: string[] = []): string[] {
  const found: string[] = [];
  for (const f of files) {
    const path = relative(SRC, f);
    if (allowed.some((a) => path.startsWith(a))) continue;
    readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (re.test(codeOf(line))) found.push(`${path}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}
