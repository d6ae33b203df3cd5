// The settings form of a server, shared by "New server" and a server's page: every field POST /servers and
// PUT /servers/{id} take, under the form names below, turned into the API's input for the same domain calls.
// A refusal is shown under the field its Message names (form-errors.ts).
import type { AppContext } from '../../../domain/app-context.js';
import { ErrorCode } from '../../../domain/errors.js';
import type { NewServerInput } from '../../../domain/servers/account-servers.js';
import { SERVER_COLORS, TRACK_LINKS } from '../../../domain/servers/server-settings.js';
import type { Session } from '../../../domain/console-users/sessions.js';
import { aboveForm, besideField, byFieldName, invalidAttrs, type FormError } from '../form-errors.js';
import { html, type Html } from '../html.js';
import { csrf } from '../layout.js';

type Kind = 'text' | 'url' | 'number' | 'check' | 'color' | 'tracklinks' | 'pool' | 'delivery';
interface Field {
  api: keyof NewServerInput;
  name: string;
  label: string;
  kind: Kind;
  hint?: string;
  /** A heading before this field, starting a group. */
  group?: string;
}

// The first four names are the ones the settings form has always posted.
const FIELDS: Field[] = [
  { api: 'Name', name: 'name', label: 'Name', kind: 'text' },
  { api: 'Color', name: 'color', label: 'Color', kind: 'color' },
  { api: 'DeliveryType', name: 'delivery', label: 'Delivery type', kind: 'delivery', hint: 'Sandbox keeps every message as a test inbox and sends nothing; fixed once the server exists.' },
  { api: 'SmtpApiActivated', name: 'smtp', label: 'SMTP sending on', kind: 'check', group: 'Sending' },
  { api: 'TrackOpens', name: 'trackopens', label: 'Track opens by default', kind: 'check' },
  { api: 'TrackLinks', name: 'tracklinks', label: 'Track links by default', kind: 'tracklinks' },
  { api: 'RetentionDays', name: 'retention', label: 'Retention (days)', kind: 'number', hint: '7 to 365.' },
  { api: 'IpPool', name: 'ippool', label: 'IP pool', kind: 'pool' },
  { api: 'SandboxAcceptsAnyFrom', name: 'anyfrom', label: 'Sandbox takes any From', kind: 'check', hint: 'A Sandbox server only: no sender signature needed.' },
  { api: 'InboundDomain', name: 'inbounddomain', label: 'Inbound domain', kind: 'text', group: 'Inbound' },
  { api: 'InboundSpamThreshold', name: 'spamthreshold', label: 'Inbound spam threshold', kind: 'number', hint: '0 (off) to 30.' },
  { api: 'InboundHookUrl', name: 'inboundhook', label: 'Inbound hook URL', kind: 'url' },
  { api: 'RawEmailEnabled', name: 'rawemail', label: 'Raw email in inbound hooks', kind: 'check' },
  { api: 'BounceHookUrl', name: 'bouncehook', label: 'Bounce hook URL', kind: 'url', group: 'Hooks of the default stream', hint: 'Each drives a webhook of the outbound stream, as the API does; empty: none.' },
  { api: 'IncludeBounceContentInHook', name: 'bouncecontent', label: 'Bounce content in hook', kind: 'check' },
  { api: 'DeliveryHookUrl', name: 'deliveryhook', label: 'Delivery hook URL', kind: 'url' },
  { api: 'OpenHookUrl', name: 'openhook', label: 'Open hook URL', kind: 'url' },
  { api: 'PostFirstOpenOnly', name: 'firstopenonly', label: 'First open only', kind: 'check' },
  { api: 'ClickHookUrl', name: 'clickhook', label: 'Click hook URL', kind: 'url' },
  { api: 'SpamComplaintHookUrl', name: 'spamhook', label: 'Spam complaint hook URL', kind: 'url' },
  { api: 'EnableSmtpApiErrorHooks', name: 'smtperrorhooks', label: 'SMTP API error hooks', kind: 'check' },
];

/** The form's values by form name: text as typed, checkboxes as booleans. */
export type ServerFormValues = Record<string, string | boolean>;

/** The values of a server as the API shows it (server-view.ts), for its form. */
export function formValuesOf(view: Record<string, unknown>): ServerFormValues {
  const out: ServerFormValues = {};
  for (const f of FIELDS) {
    const v = view[f.api];
    out[f.name] = f.kind === 'check' ? v === true : v === null || v === undefined ? '' : String(v);
  }
  return out;
}

/** A new server's values: the columns' defaults (SMTP on, 45 days, tracking off). */
export const NEW_SERVER_VALUES: ServerFormValues = formValuesOf({ Color: 'Purple', DeliveryType: 'Live', SmtpApiActivated: true, TrackLinks: 'None', RetentionDays: 45, InboundSpamThreshold: 0 });

/** The values as posted (an unchecked box is absent from the body: false). */
export function formValuesFrom(body: Record<string, string>): ServerFormValues {
  const out: ServerFormValues = {};
  for (const f of FIELDS) out[f.name] = f.kind === 'check' ? body[f.name] === 'on' : (body[f.name] ?? '').slice(0, 4096);
  return out;
}

function apiValue(f: Field, v: string | boolean): unknown {
  if (f.kind === 'check') return v === true;
  const s = String(v);
  // Numbers go to the domain as typed ("" or "abc": NaN), so its own range Message answers them.
  if (f.kind === 'number') return s.trim() === '' ? Number.NaN : Number(s);
  return s;
}

/**
 * The API input for a create (every field with a value) or an edit (`before` given: only the fields that
 * changed, so saving one setting does not rewrite the default stream's webhooks behind the hook fields).
 */
export function serverInput(values: ServerFormValues, before?: ServerFormValues): NewServerInput {
  const input: Record<string, unknown> = {};
  for (const f of FIELDS) {
    const v = values[f.name];
    if (v === undefined) continue;
    if (before) {
      if (f.kind === 'delivery') continue;
      const was = before[f.name];
      if (v === was || (f.kind === 'color' && String(v).toLowerCase() === String(was).toLowerCase())) continue;
    } else if (v === '' && f.kind !== 'number' && f.api !== 'Name') continue;
    input[f.api] = apiValue(f, v);
  }
  return input as NewServerInput;
}

/** Which field a refusal of the servers API concerns (its Messages start with the field's name). */
export const serverFieldOf = byFieldName(Object.fromEntries(FIELDS.map((f) => [f.api, f.name])), {
  [ErrorCode.ServerNameExists]: 'name',
  [ErrorCode.ServerNameMissing]: 'name',
  [ErrorCode.ServerInvalidColor]: 'color',
});

function control(ctx: AppContext, f: Field, v: string | boolean, id: string, attrs: Html): Html {
  const opts = (list: readonly string[], labels?: Record<string, string>) =>
    list.map((o) => html`<option value="${o}"${String(v).toLowerCase() === o.toLowerCase() ? html` selected` : ''}>${labels?.[o] ?? o}</option>`);
  switch (f.kind) {
    case 'check':
      return html`<input id="${id}" name="${f.name}" type="checkbox"${v === true ? html` checked` : ''}${attrs}>`;
    case 'color':
      return html`<select id="${id}" name="${f.name}"${attrs}>${opts(SERVER_COLORS)}</select>`;
    case 'tracklinks':
      return html`<select id="${id}" name="${f.name}"${attrs}>${opts(TRACK_LINKS)}</select>`;
    case 'delivery':
      return html`<select id="${id}" name="${f.name}"${attrs}>${opts(['Live', 'Sandbox'])}</select>`;
    case 'pool': {
      const pools = ctx.config.ipPools.map((p) => p.name);
      return html`<select id="${id}" name="${f.name}"${attrs}><option value=""${v === '' ? html` selected` : ''}>None (the default addresses)</option>${opts(pools)}</select>`;
    }
    case 'number':
      return html`<input id="${id}" name="${f.name}" type="number" step="1" value="${String(v)}"${attrs}>`;
    case 'url':
      return html`<input id="${id}" name="${f.name}" type="text" inputmode="url" autocomplete="off" spellcheck="false" placeholder="https://" value="${String(v)}"${attrs}>`;
    default:
      return html`<input id="${id}" name="${f.name}" type="text" maxlength="255" value="${String(v)}"${attrs}>`;
  }
}

export interface ServerFormOptions {
  action: string;
  /** "new" shows Delivery type; a server's page shows it as text instead (it cannot change). */
  mode: 'new' | 'edit';
  values: ServerFormValues;
  error?: FormError | null;
  session: Session;
  submit: string;
  label: string;
}

/** The form; inputs disabled and no button for viewers (the router refuses their POST regardless). */
export function serverForm(ctx: AppContext, o: ServerFormOptions): Html {
  const admin = o.session.user.role === 'admin';
  const rows = FIELDS.filter((f) => (o.mode === 'new' || f.kind !== 'delivery') && (f.kind !== 'pool' || ctx.config.ipPools.length > 0 || o.values[f.name] !== '')).map((f) => {
    const id = `f-${f.name}`;
    const attrs = html`${invalidAttrs(o.error, f.name)}${admin ? '' : html` disabled`}`;
    return html`${f.group ? html`<h3>${f.group}</h3>` : ''}<div class="form-row${f.kind === 'check' ? ' check' : ''}"><label for="${id}">${f.label}</label><div class="form-input">${control(ctx, f, o.values[f.name] ?? '', id, attrs)}${f.hint ? html`<span class="muted small">${f.hint}</span>` : ''}${besideField(o.error, f.name)}</div></div>`;
  });
  return html`${aboveForm(o.error)}<form method="post" action="${o.action}" class="settings" aria-label="${o.label}">${csrf(o.session)}
${rows}
${admin ? html`<div class="form-row"><span></span><div class="form-input"><button type="submit">${o.submit}</button></div></div>` : ''}</form>`;
}
