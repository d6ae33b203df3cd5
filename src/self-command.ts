// How the running program was started, as a command a person can type: the first-start banner tells the
// operator what to run next, and `mailroom` is on the PATH only after `npm link` or a global install.
import { basename, isAbsolute, relative } from 'node:path';

export function selfCommand(argv: string[] = process.argv, cwd: string = process.cwd()): string {
  const script = argv[1] ?? '';
  if (basename(script) === 'mailroom') return 'mailroom';
  const rel = relative(cwd, script);
  const path = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : script;
  return script.endsWith('.ts') ? `npx tsx ${path}` : `node ${path}`;
}
