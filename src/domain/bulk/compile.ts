// Compiles a bulk request's entries into ordinary messages: the request's content rendered with each entry's
// TemplateModel (the template language of src/domain/templates: inline Subject/HtmlBody/TextBody parsed once
// per page, or the stored template named by TemplateId/TemplateAlias), the entry's recipients, Metadata and
// Headers merged over the request's, then the same validation as POST /email (accepting/validate.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { prepareMessage } from '../accepting/validate.js';
import type { AttachmentChecksums } from '../accepting/checksums.js';
import type { PreparedAttachment, PreparedMessage } from '../accepting/types.js';
import { ApiError, ErrorCode } from '../errors.js';
import { parseTemplate, RenderBudget, renderNodesToString, TemplateError, type TemplateNode } from '../templates/render.js';
import { loadTemplateForSending, renderStoredTemplate, type RenderedMessage } from '../templates/render-message.js';
import type { BulkContent, BulkEntry } from './content.js';

/** Compiles one entry; `subject` is the Subject as written (the template's, for TemplateId/TemplateAlias). */
export type Compile = ((entry: BulkEntry) => PreparedMessage) & { subject: string };
type Renderer = ((model: unknown) => RenderedMessage) & { subject: string };

function parsed(part: string, source: string | null): TemplateNode[] | null {
  if (source === null) return null;
  try {
    return parseTemplate(source);
  } catch (err) {
    if (err instanceof TemplateError) throw new ApiError(ErrorCode.TemplateInvalidSyntax, `The ${part} could not be parsed: ${err.message}`);
    throw err;
  }
}

function rendered(part: string, nodes: TemplateNode[], model: unknown, html: boolean, budget: RenderBudget): string {
  try {
    return renderNodesToString(nodes, model, { html, budget });
  } catch (err) {
    if (err instanceof TemplateError) throw new ApiError(ErrorCode.TemplateInvalidSyntax, `The ${part} could not be rendered: ${err.message}`);
    throw err;
  }
}

/** The renderer of the request's content: throws ApiError (1101, 1122, 1125) when the content cannot be used. */
export async function contentRenderer(db: Kysely<Database>, serverId: number, c: BulkContent): Promise<Renderer> {
  if (c.TemplateId !== null || c.TemplateAlias !== null) {
    const { template, layout } = await loadTemplateForSending(db, serverId, { TemplateId: c.TemplateId, TemplateAlias: c.TemplateAlias });
    return Object.assign((model: unknown) => renderStoredTemplate(template, layout, model, { inlineCss: c.InlineCss }), { subject: template.subject ?? '' });
  }
  const subject = parsed('Subject', c.Subject ?? '')!;
  const html = parsed('HtmlBody', c.HtmlBody);
  const text = parsed('TextBody', c.TextBody);
  const render = (model: unknown): RenderedMessage => {
    // One budget for the entry's three parts, as for a stored template (render-message.ts).
    const budget = new RenderBudget();
    return {
      subject: rendered('Subject', subject, model, false, budget),
      htmlBody: html && rendered('HtmlBody', html, model, true, budget),
      textBody: text && rendered('TextBody', text, model, false, budget),
    };
  };
  return Object.assign(render, { subject: c.Subject ?? '' });
}

/** What every message lists of the request's attachments (their content stays in bulk_attachments). */
export function attachmentList(json: string): PreparedAttachment[] {
  const list = JSON.parse(json) as Array<{ Name: string; ContentType: string; ContentID: string | null; ContentLength: number; Checksums?: AttachmentChecksums }>;
  return list.map((a) => ({ name: a.Name, contentType: a.ContentType, contentId: a.ContentID, content: '', size: a.ContentLength, checksums: a.Checksums }));
}

export async function compiler(db: Kysely<Database>, serverId: number, c: BulkContent, attachments: PreparedAttachment[]): Promise<Compile> {
  const render = await contentRenderer(db, serverId, c);
  const compile = (entry: BulkEntry): PreparedMessage => {
    const r = render(entry.TemplateModel ?? {});
    const message = prepareMessage(
      {
        From: c.From,
        To: entry.To,
        Cc: entry.Cc,
        Bcc: entry.Bcc,
        Subject: r.subject,
        HtmlBody: r.htmlBody,
        TextBody: r.textBody,
        ReplyTo: c.ReplyTo,
        Tag: c.Tag,
        Headers: [...c.Headers, ...(entry.Headers ?? [])],
        Metadata: { ...c.Metadata, ...(entry.Metadata ?? {}) },
        TrackOpens: c.TrackOpens,
        TrackLinks: c.TrackLinks,
        MessageStream: c.MessageStream,
      },
      { allowTemplateModel: false },
    );
    message.attachments = attachments;
    return message;
  };
  return Object.assign(compile, { subject: render.subject });
}
