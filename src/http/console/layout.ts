// The frame of every console page: header with the server picker, navigation, flash message, and the one
// stylesheet and script (no inline script or style: the CSP forbids them), and an icon of its own (without
// one, browsers ask for /favicon.ico, which the API answers 404: an error in every page's console).
import type { Session } from '../../domain/console-users/sessions.js';
import type { ServerRef } from './guard.js';
import { html, type Html } from './html.js';

export interface PageFrame {
  title: string;
  session: Session;
  servers: ServerRef[];
  server?: ServerRef;
  active?: string;
  notice?: string;
  error?: string;
  scripts?: string[];
  styles?: string[];
}

const SERVER_PAGES: Array<[string, string]> = [
  ['activity', 'Activity'],
  ['bulk', 'Bulk'],
  ['inbound', 'Inbound'],
  ['bounces', 'Bounces'],
  ['suppressions', 'Suppressions'],
  ['streams', 'Streams'],
  ['templates', 'Templates'],
  ['webhooks', 'Webhooks'],
  ['stats', 'Statistics'],
];

export function page(f: PageFrame, body: Html): string {
  const s = f.server ?? f.servers[0];
  const nav = s
    ? SERVER_PAGES.map(([path, label]) => html`<a href="/console/s/${s.id}/${path}"${f.active === path ? html` aria-current="page"` : ''}>${label}</a>`)
    : [];
  // The account's pages, for viewers too: they see everything and change nothing.
  const account = html`<a href="/console/servers"${f.active === 'servers' ? html` aria-current="page"` : ''}>Servers</a><a href="/console/senders"${f.active === 'senders' ? html` aria-current="page"` : ''}>Senders &amp; domains</a><a href="/console/users"${f.active === 'users' ? html` aria-current="page"` : ''}>Users</a>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${f.title} · mailroom</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">${(f.styles ?? []).map((h) => html`<link rel="stylesheet" href="${h}">`)}
<script src="/console/assets/console.js" defer></script>${(f.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head><body data-csrf="${f.session.csrfToken}">
<header class="top">
  <a class="brand" href="/console">mailroom</a>
  <form class="picker" method="get" action="/console/go">
    <label for="server-picker">Server</label>
    <select id="server-picker" name="server" data-autosubmit>${f.servers.map((x) => html`<option value="${x.id}"${s?.id === x.id ? html` selected` : ''}>${x.name}${x.delivery_type === 'Sandbox' ? ' (sandbox)' : ''}</option>`)}</select>
    <input type="hidden" name="page" value="${f.active && SERVER_PAGES.some(([p]) => p === f.active) ? f.active : 'activity'}">
    <button type="submit" class="js-hide">Open</button>
  </form>
  <span class="who">${f.session.user.email} <span class="role">${f.session.user.role}</span></span>
  <form method="post" action="/logout" class="inline"><input type="hidden" name="_csrf" value="${f.session.csrfToken}"><button type="submit">Sign out</button></form>
</header>
<nav class="tabs" aria-label="Sections">${nav}${account}</nav>
<main id="main">
${f.notice ? html`<p class="notice" role="status">${f.notice}</p>` : ''}${f.error ? html`<p class="error" role="alert">${f.error}</p>` : ''}
<h1>${f.title}</h1>
${body}
</main></body></html>`.text;
}

/** A bare page (sign-in, errors before a session exists). */
export function barePage(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · mailroom</title><link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/console/assets/console.css"></head>
<body class="bare"><main id="main"><h1>${title}</h1>${body}</main></body></html>`.text;
}

/** A hidden CSRF field for a form of this session. */
export const csrf = (session: Session): Html => html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;

/** A date-time in UTC, named: the text a notice carries, and what a page shows until its script runs. */
export function whenText(ms: number | string | null | undefined): string {
  if (ms === null || ms === undefined || ms === '') return '';
  const t = typeof ms === 'string' ? Date.parse(ms) : ms;
  if (!Number.isFinite(t)) return String(ms);
  return new Date(t).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

/**
 * A date-time as the console shows it: in the viewer's time zone, named ("2026-11-28 11:58:44 CET"). The
 * server does not know the zone, so the page carries the instant (<time datetime>, UTC text until then) and
 * its script (assets/console.js) writes it in the browser's zone. The API and its filters keep Moscow time.
 */
export function when(ms: number | string | null | undefined): Html | string {
  const text = whenText(ms);
  if (!text.endsWith(' UTC')) return text;
  const t = typeof ms === 'string' ? Date.parse(ms) : (ms as number);
  return html`<time datetime="${new Date(t).toISOString()}">${text}</time>`;
}

/**
 * The attributes of a date field: ISO dates typed or pasted (YYYY-MM-DD) whatever the browser's locale, where
 * type="date" shows mm/dd/yyyy to an American English browser. The API takes the same form.
 */
export const ISO_DATE = html`type="text" inputmode="numeric" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" placeholder="YYYY-MM-DD" maxlength="10"`;
