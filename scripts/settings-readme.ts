// Rewrites the README's settings table (between the settings markers in "Configuration") from the declaration
// table in src/settings.ts. `npm run settings:readme`; test/config-settings.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsMarkdown } from '../src/settings.js';

export const START = '<!-- settings: generated from src/settings.ts by `npm run settings:readme` -->';
export const END = '<!-- /settings -->';

/** The README with its settings section replaced by the table's current text. */
export function withSettings(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md: the settings markers are missing (${START} ... ${END})`);
  return `${readme.slice(0, a + START.length)}\n${settingsMarkdown()}\n${readme.slice(b)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = new URL('../README.md', import.meta.url);
  const before = readFileSync(file, 'utf8');
  const after = withSettings(before);
  writeFileSync(file, after);
  console.log(after === before ? 'README.md: settings section already current' : 'README.md: settings section rewritten');
}
