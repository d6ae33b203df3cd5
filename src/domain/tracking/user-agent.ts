// User agent -> Client, OS and Platform of an open or click (docs/reference/messages.md, "Open record":
// Client{Name,Company,Family}, OS{Name,Company,Family}, Platform Desktop|WebMail|Mobile|Unknown). Parsing is
// ua-parser-js 1.x (MIT; 2.x is AGPL) for browsers, operating systems and devices, with the e-mail clients it
// does not know added below as an extension; the image proxies of web mail services, which fetch pixels on
// the reader's behalf, are recognised first because they disguise as old browsers. Expected classes of real
// user agents: test/fixtures/user-agents.ts.
import { type Extensions, UAParser } from 'ua-parser-js';

export interface Party {
  Name: string;
  Company: string;
  Family: string;
}

export type Platform = 'Desktop' | 'WebMail' | 'Mobile' | 'Unknown';

export interface ParsedAgent {
  client: Party;
  os: Party;
  platform: Platform;
}

/** E-mail clients, tried before the browser rules (an Outlook or Thunderbird agent also names a browser
 * engine). Each pattern is a literal name then one bounded run of version characters: linear in the input,
 * which is cut to 1024 characters anyway. */
/** A constant name still takes its capture group (the parser pairs properties with groups in order). */
const EMAIL_CLIENTS: Extensions = {
  browser: [
    [/(microsoft outlook) ([\d.]+)/i], ['name', 'version'],
    [/\b(thunderbird|postbox|mailbird|spicebird|seamonkey|eudora|evolution|kmail|geary|sylpheed|balsa|trojita)\/([\w.]+)/i], ['name', 'version'],
    [/\b(outlook-(?:ios|android|iphone)|oneoutlook)\/([\w.]+)/i], [['name', 'Outlook'], 'version'],
    [/\b(windows-live-mail|wlmail)\/([\w.]+)/i], [['name', 'Windows Live Mail'], 'version'],
    [/\b(emclient)\/([\w.]+)/i], [['name', 'eM Client'], 'version'],
    [/\b(airmail|spark|canary mail|claws mail)\/([\w.]+)/i], ['name', 'version'],
    [/\b((?:apple )?mail)\/([\d.]+) cfnetwork/i], [['name', 'Apple Mail'], 'version'],
  ],
};

/** The names the statistics have always used where ua-parser-js 1.x spells an OS differently. */
const OS_NAMES: Record<string, string> = { 'Mac OS': 'macOS', 'Chromium OS': 'Chrome OS' };

const UNKNOWN: Party = { Name: 'Unknown', Company: 'Unknown', Family: 'Unknown' };

const WEBMAIL_PROXIES: Array<[RegExp, Party]> = [
  [/GoogleImageProxy/i, { Name: 'Gmail', Company: 'Google', Family: 'Gmail' }],
  [/YahooMailProxy/i, { Name: 'Yahoo Mail', Company: 'Yahoo', Family: 'Yahoo Mail' }],
  [/ymailboxproxy|YahooMobileMail/i, { Name: 'Yahoo Mail', Company: 'Yahoo', Family: 'Yahoo Mail' }],
];

/** The maker of a client or OS family; the parser names families but not their companies. */
const COMPANIES: Array<[RegExp, string]> = [
  [/^(chrome|chromium|android|chrome os|chromeos|gmail)\b/i, 'Google'],
  [/^(edge|ie|windows|microsoft|outlook|windows live mail|xbox)/i, 'Microsoft Corporation'],
  [/^(safari|mobile safari|ios|ipados|mac ?os|apple mail|mail|webkit|watchos)\b/i, 'Apple Inc.'],
  [/^(firefox|thunderbird|mozilla)/i, 'Mozilla'],
  [/^(opera)/i, 'Opera Software'],
  [/^(samsung)/i, 'Samsung'],
  [/^(yandex)/i, 'Yandex'],
  [/^(yahoo)/i, 'Yahoo'],
  [/^(ubuntu)/i, 'Canonical Ltd.'],
];

const DESKTOP_OS = /^(windows|mac ?os|linux|ubuntu|debian|fedora|chrome ?os|freebsd|openbsd|netbsd|solaris|mint|arch|gentoo|suse|red ?hat|centos)/i;

function company(family: string): string {
  for (const [re, name] of COMPANIES) if (re.test(family)) return name;
  return 'Unknown';
}

function party(name: string | undefined, version: string | undefined): Party {
  if (!name) return UNKNOWN;
  return { Name: version ? `${name} ${version}` : name, Company: company(name), Family: name };
}

export function parseUserAgent(userAgent: string): ParsedAgent {
  const ua = userAgent.slice(0, 1024);
  if (ua.trim() === '') return { client: UNKNOWN, os: UNKNOWN, platform: 'Unknown' };
  const r = new UAParser(ua, EMAIL_CLIENTS).getResult();
  const osName = r.os.name === undefined ? undefined : (OS_NAMES[r.os.name] ?? r.os.name);
  const os = party(osName, r.os.version);
  for (const [re, client] of WEBMAIL_PROXIES) if (re.test(ua)) return { client, os: UNKNOWN, platform: 'WebMail' };
  const client = party(r.browser.name, r.browser.version);
  const device = r.device.type;
  let platform: Platform = 'Unknown';
  if (device === 'mobile' || device === 'tablet' || device === 'wearable') platform = 'Mobile';
  else if (osName && /^(ios|ipados|android|windows phone|blackberry|harmonyos|kaios)/i.test(osName)) platform = 'Mobile';
  else if (osName && DESKTOP_OS.test(osName)) platform = 'Desktop';
  return { client, os, platform };
}
