// Rewrites the settings table of docs/settings.md (between its settings markers) from the declaration table
// in src/infra/settings-table.ts. `npm run settings:readme`; test/config-settings.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsMarkdown } from '../src/settings.js';

export const START = '<!-- settings: generated from src/infra/settings-table.ts by `npm run settings:readme` -->';
export const END = '<!-- /settings -->';

/** The page that holds the table (the README links to it). */
export const SETTINGS_PAGE = new URL('../docs/settings.md', import.meta.url);

/** The page's text with its settings section replaced by the table's current text. */
export function withSettings(page: string): string {
  const a = page.indexOf(START);
  const b = page.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/settings.md: the settings markers are missing (${START} ... ${END})`);
  return `${page.slice(0, a + START.length)}\n${settingsMarkdown()}\n${page.slice(b)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const before = readFileSync(SETTINGS_PAGE, 'utf8');
  const after = withSettings(before);
  writeFileSync(SETTINGS_PAGE, after);
  console.log(after === before ? 'docs/settings.md: settings section already current' : 'docs/settings.md: settings section rewritten');
}
