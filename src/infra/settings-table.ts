// Every MAILROOM_* setting, declared once: its area, its default as the README states it, what it does, its
// kind, and the Config field it fills. From this table come the `Config` type (infra/config-types.ts), the
// names loadConfig accepts (an unknown MAILROOM_* name stops the start, naming the nearest declared one),
// the reading and checking of every setting (src/config-read.ts, one reader for all), and the settings
// table of docs/settings.md (`npm run settings:readme` rewrites it; test/config-settings.test.ts fails when
// it is stale). It lives below the composition root because Config, which every layer receives, is derived
// from it. The rows are declared by area, one file each in settings/ (what a row holds: settings/setting.ts),
// one entry per block, so that adding or removing a setting is a change of its own lines; this file puts
// the areas in the order docs/settings.md shows them.
import { ACCOUNT_SETTINGS } from './settings/accounts.js';
import { DATABASE_SETTINGS } from './settings/database.js';
import { DELIVERY_SETTINGS } from './settings/delivery.js';
import { DEV_SMTP_SETTINGS } from './settings/dev-smtp.js';
import { DMARC_SETTINGS } from './settings/dmarc.js';
import { DNS_SETTINGS } from './settings/dns.js';
import { HTTP_SETTINGS } from './settings/http.js';
import { INBOUND_SMTP_SETTINGS } from './settings/inbound-smtp.js';
import { PARSER_THREAD_SETTINGS } from './settings/parser-threads.js';
import { SENDING_SETTINGS } from './settings/sending.js';
import type { Setting } from './settings/setting.js';
import { SUBMISSION_SETTINGS } from './settings/submission.js';
import { TEST_INBOX_SETTINGS } from './settings/test-inbox.js';

export const SETTINGS = {
  ...HTTP_SETTINGS,
  ...ACCOUNT_SETTINGS,
  ...DATABASE_SETTINGS,
  ...SENDING_SETTINGS,
  ...DELIVERY_SETTINGS,
  ...DNS_SETTINGS,
  ...INBOUND_SMTP_SETTINGS,
  ...PARSER_THREAD_SETTINGS,
  ...DMARC_SETTINGS,
  ...SUBMISSION_SETTINGS,
  ...DEV_SMTP_SETTINGS,
  ...TEST_INBOX_SETTINGS,
} as const satisfies Record<`MAILROOM_${string}`, Setting>;

export type SettingName = keyof typeof SETTINGS;

export const SETTING_NAMES: ReadonlySet<string> = new Set(Object.keys(SETTINGS));
