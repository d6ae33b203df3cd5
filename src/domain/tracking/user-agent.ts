// User agent -> Client, OS and Platform of an open or click (docs/reference/messages.md, "Open record":
// Client{Name,Company,Family}, OS{Name,Company,Family}, Platform Desktop|WebMail|Mobile|Unknown). Parsing is
// ua-parser-js with its e-mail client extension (Outlook, Thunderbird, Apple Mail, ...); the image proxies of
// web mail services, which fetch pixels on the reader's behalf, are recognised first because they disguise as
// old browsers.
import { UAParser } from 'ua-parser-js';
import { Emails } from 'ua-parser-js/extensions';

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
  const r = new UAParser(ua, Emails).getResult();
  const os = party(r.os.name, r.os.version);
  for (const [re, client] of WEBMAIL_PROXIES) if (re.test(ua)) return { client, os: UNKNOWN, platform: 'WebMail' };
  const client = party(r.browser.name, r.browser.version);
  const device = r.device.type;
  let platform: Platform = 'Unknown';
  if (device === 'mobile' || device === 'tablet' || device === 'wearable') platform = 'Mobile';
  else if (r.os.name && /^(ios|ipados|android|windows phone|blackberry|harmonyos|kaios)/i.test(r.os.name)) platform = 'Mobile';
  else if (r.os.name && DESKTOP_OS.test(r.os.name)) platform = 'Desktop';
  return { client, os, platform };
}
