// Compiles a bulk request's entries into ordinary messages: the request's content rendered with each entry's
// TemplateModel (the template language of src/domain/templates: inline Subject/HtmlBody/TextBody parsed once
// per page, or the stored template named by TemplateId/TemplateAlias), the entry's recipients, Metadata and
// Headers merged over the request's (content.ts, mergeHeaders), then the same validation as POST /email
// (accepting/validate.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { bad, LINE_BREAK } from '../accepting/fields.js';
import { MAX_SUBJECT } from '../accepting/limits.js';
import { prepareMessage } from '../accepting/validate.js';
import type { AttachmentChecksums } from '../accepting/checksums.js';
import type { PreparedAttachment, PreparedMessage } from '../accepting/types.js';
import { ApiError, ErrorCode } from '../errors.js';
import { parseTemplate, RenderBudget, renderNodesToString, TemplateError, type TemplateNode } from '../templates/render.js';
import type { CssThreads } from '../templates/inline-css.js';
import { loadTemplateForSending, renderStoredTemplate, type RenderedMessage } from '../templates/render-message.js';
import { mergeHeaders, type BulkContent, type BulkEntry } from './content.js';
import type { Turns } from './turns.js';

/**
 * Compiles one entry; `subject` is the Subject as written (the template's, for TemplateId/TemplateAlias);
 * `subjectOf` renders only the Subject, null when it has no template tags (the same for every entry).
 */
export type Compile = ((entry: BulkEntry) => Promise<PreparedMessage>) & { subject: string; subjectOf: SubjectOf };
type SubjectOf = ((model: unknown) => string) | null;
type Renderer = ((model: unknown) => Promise<RenderedMessage>) & { subject: string; subjectOf: SubjectOf };

/** Where a stored template's CSS is inlined (templates/inline-css.ts): the process's thread pool, and whether
 * to wait for room there (the expansion job) or refuse with 503 (the request). */
export interface CssInlining {
  threads: CssThreads;
  waitForRoom: boolean;
}

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
export async function contentRenderer(db: Kysely<Database>, css: CssInlining, serverId: number, c: BulkContent): Promise<Renderer> {
  if (c.TemplateId !== null || c.TemplateAlias !== null) {
    const { template, layout } = await loadTemplateForSending(db, serverId, { TemplateId: c.TemplateId, TemplateAlias: c.TemplateAlias });
    const nodes = parsed("template's Subject", template.subject ?? '')!;
    const render = (model: unknown) => renderStoredTemplate(css.threads, template, layout, model, { inlineCss: c.InlineCss, waitForRoom: css.waitForRoom });
    return Object.assign(render, {
      subject: template.subject ?? '',
      subjectOf: subjectRenderer(template.subject ?? '', nodes),
    });
  }
  const subject = parsed('Subject', c.Subject ?? '')!;
  const html = parsed('HtmlBody', c.HtmlBody);
  const text = parsed('TextBody', c.TextBody);
  const render = async (model: unknown): Promise<RenderedMessage> => {
    // One budget for the entry's three parts, as for a stored template (render-message.ts).
    const budget = new RenderBudget();
    return {
      subject: rendered('Subject', subject, model, false, budget),
      htmlBody: html && rendered('HtmlBody', html, model, true, budget),
      textBody: text && rendered('TextBody', text, model, false, budget),
    };
  };
  return Object.assign(render, { subject: c.Subject ?? '', subjectOf: subjectRenderer(c.Subject ?? '', subject) });
}

function subjectRenderer(source: string, nodes: TemplateNode[]): SubjectOf {
  if (!source.includes('{{')) return null;
  return (model: unknown) => rendered('Subject', nodes, model, false, new RenderBudget());
}

/** What every message lists of the request's attachments (their content stays in bulk_attachments). */
export function attachmentList(json: string): PreparedAttachment[] {
  const list = JSON.parse(json) as Array<{ Name: string; ContentType: string; ContentID: string | null; ContentLength: number; Checksums?: AttachmentChecksums }>;
  return list.map((a) => ({ name: a.Name, contentType: a.ContentType, contentId: a.ContentID, content: '', size: a.ContentLength, checksums: a.Checksums }));
}

export async function compiler(db: Kysely<Database>, css: CssInlining, serverId: number, c: BulkContent, attachments: PreparedAttachment[]): Promise<Compile> {
  const render = await contentRenderer(db, css, serverId, c);
  const compile = async (entry: BulkEntry): Promise<PreparedMessage> => {
    const r = await render(entry.TemplateModel ?? {});
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
        Headers: mergeHeaders(c.Headers, entry.Headers),
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
  return Object.assign(compile, { subject: render.subject, subjectOf: render.subjectOf });
}

/**
 * Every entry's rendered Subject checked as POST /email checks one (length, no CR/LF: RFC 5322 2.2), at
 * acceptance: a name with a line break in a TemplateModel refuses the request naming its entry, instead of
 * that recipient being left out at expansion after a 200. Only the Subject, a short text (rendering the
 * bodies too would take seconds; the workers render those), in turns of the event loop (turns.ts).
 */
export async function checkSubjects(compile: Compile, entries: BulkEntry[], turns: Turns): Promise<void> {
  const subjectOf = compile.subjectOf;
  if (!subjectOf) return;
  for (let i = 0; i < entries.length; i++) {
    const where = `Messages[${i}]`;
    let subject: string;
    try {
      subject = subjectOf(entries[i].TemplateModel ?? {});
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(err.errorCode, `${where}: ${err.message}`);
      throw err;
    }
    if (subject.length > MAX_SUBJECT) throw bad(`The Subject rendered for '${where}' is longer than ${MAX_SUBJECT} characters (${subject.length}).`);
    if (LINE_BREAK.test(subject)) throw bad(`The Subject rendered for '${where}' contains CR, LF or other control characters (from its TemplateModel).`);
    if (turns.due()) await turns.take();
  }
}
