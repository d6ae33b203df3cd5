// The webhook form (create and edit): URL, stream (chosen at creation only, as in the API), every trigger
// with its options, HTTP basic auth and extra headers; the form's fields read as the API's WebhookInput,
// and a refused value shown beside its field with the API's message.
import type { AppContext } from '../../../domain/app-context.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import type { WebhookInput } from '../../../domain/webhooks/store.js';
import { defaultTriggers, type TriggerKey, type Triggers } from '../../../domain/webhooks/triggers.js';
import type { webhookView } from '../../../domain/webhooks/view.js';
import { html } from '../html.js';
import { csrf } from '../layout.js';
import type { PageCall } from '../router.js';
import { besideField, byPrefix, formError, invalidAttrs, type FormError } from '../form-errors.js';

export const TRIGGERS = Object.keys(defaultTriggers()) as TriggerKey[];

/** A trigger's options beside Enabled (Open: PostFirstOpenOnly; Bounce, SpamComplaint: IncludeContent). */
const OPTIONS: Record<string, string> = { PostFirstOpenOnly: 'first open only', IncludeContent: 'include content' };

/** What the form shows: a stored webhook's values, or the values just posted when one was refused. */
interface Shown {
  url: string;
  stream: string;
  triggers: Triggers;
  authuser: string;
  authpassword: string;
  headers: string;
}

function triggersOf(b: Record<string, string>): Triggers {
  const t = defaultTriggers();
  for (const k of TRIGGERS) for (const opt of Object.keys(t[k])) (t[k] as Record<string, boolean>)[opt] = b[`trigger_${k}${opt === 'Enabled' ? '' : `_${opt}`}`] === 'on';
  return t;
}

/** The form's fields as the API's input: one checkbox per trigger and option, headers one "Name: Value" per line. */
export function webhookInput(b: Record<string, string>): WebhookInput {
  // Header lines: linear in the text; the domain refuses more than MAX_HEADERS, a bad name or value.
  const headers = (b.headers ?? '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const colon = l.indexOf(':');
      return colon < 0 ? { Name: l.trim(), Value: '' } : { Name: l.slice(0, colon).trim(), Value: l.slice(colon + 1).trim() };
    });
  return { Url: b.url ?? '', MessageStream: b.stream || undefined, Triggers: triggersOf(b), HttpAuth: { Username: b.authuser ?? '', Password: b.authpassword ?? undefined }, HttpHeaders: headers };
}

/** Which field a refusal of the webhook store is about (its messages name the field first). */
export const webhookRefusal = (err: unknown): FormError =>
  formError(
    err,
    byPrefix(
      [
        ['Url', 'url'],
        ['Put credentials', 'url'],
        ['HttpHeaders', 'headers'],
        ['At most', 'headers'],
        ['HttpAuth.Username', 'authuser'],
        ['HttpAuth.Password', 'authpassword'],
        ['The message stream', 'stream'],
      ],
      'url',
    ),
  );

export interface FormState {
  /** The values posted, shown again when they were refused. */
  values?: Record<string, string>;
  error?: FormError;
}

export async function webhookForm(ctx: AppContext, c: PageCall, action: string, w: ReturnType<typeof webhookView> | null, st: FormState = {}) {
  const e = st.error;
  const v: Shown = st.values
    ? { url: st.values.url ?? '', stream: st.values.stream ?? '', triggers: triggersOf(st.values), authuser: st.values.authuser ?? '', authpassword: st.values.authpassword ?? '', headers: st.values.headers ?? '' }
    : {
        url: w?.Url ?? '',
        stream: w?.MessageStream ?? '',
        triggers: w?.Triggers ?? defaultTriggers(),
        authuser: w?.HttpAuth.Username ?? '',
        authpassword: w?.HttpAuth.Password ?? '',
        headers: (w?.HttpHeaders ?? []).map((h) => `${h.Name}: ${h.Value}`).join('\n'),
      };
  // A new webhook listens on the server's default transactional stream unless another is chosen, as in the API.
  const streams = w ? [] : (await listStreams(ctx.db, c.server.id, {})).filter((s) => s.type !== 'Inbound');
  const chosen = v.stream || (streams.find((s) => s.type === 'Transactional' && s.is_default === 1) ?? streams[0])?.id;
  const check = (k: TriggerKey, opt: string) => {
    const name = `trigger_${k}${opt === 'Enabled' ? '' : `_${opt}`}`;
    const on = (v.triggers[k] as Record<string, boolean>)[opt];
    return html`<label class="check"><input type="checkbox" name="${name}"${on ? html` checked` : ''}> ${opt === 'Enabled' ? k : OPTIONS[opt] ?? opt}</label>`;
  };
  return html`<form method="post" action="${action}" class="stack narrow" novalidate>${csrf(c.session)}
<label for="w-url">URL</label><input id="w-url" name="url" type="url" required maxlength="2048" value="${v.url}"${invalidAttrs(e, 'url')}>${besideField(e, 'url')}
${w ? '' : html`<label for="w-stream">Stream</label><select id="w-stream" name="stream"${invalidAttrs(e, 'stream')}>${streams.map((s) => html`<option value="${s.id}"${s.id === chosen ? html` selected` : ''}>${s.name} (${s.type.toLowerCase()})</option>`)}</select>${besideField(e, 'stream')}`}
<fieldset><legend>Triggers</legend>${TRIGGERS.map((k) => html`<div>${Object.keys(v.triggers[k]).map((opt) => check(k, opt))}</div>`)}</fieldset>
<label for="w-user">HTTP auth user</label><input id="w-user" name="authuser" value="${v.authuser}" autocomplete="off" maxlength="256"${invalidAttrs(e, 'authuser')}>${besideField(e, 'authuser')}
<label for="w-pass">HTTP auth password${w?.HttpAuth.Password ? ' (set; leave as is to keep)' : ''}</label><input id="w-pass" name="authpassword" type="password" value="${v.authpassword}" autocomplete="new-password" maxlength="256"${invalidAttrs(e, 'authpassword')}>${besideField(e, 'authpassword')}
<label for="w-headers">Headers (one "Name: Value" per line)</label><textarea id="w-headers" name="headers" rows="3"${invalidAttrs(e, 'headers')}>${v.headers}</textarea>${besideField(e, 'headers')}
<button type="submit">${w ? 'Save' : 'Create webhook'}</button></form>`;
}
