// TemplateModel on a single send (docs/reference/sending.md, "Outgoing message"): the model is substituted into
// Subject, HtmlBody and TextBody with the template language of docs/reference/templates.md. A part that does
// not render refuses the message with ErrorCode 1122 naming the part and the reason.
import { ApiError, ErrorCode } from '../errors.js';
import { RenderBudget, renderTemplate } from '../templates/render.js';
import { bad } from './fields.js';

interface Parts {
  subject: string;
  htmlBody: string | null;
  textBody: string | null;
}

function render(part: string, source: string, model: Record<string, unknown>, budget: RenderBudget): string {
  try {
    return renderTemplate(source, model, { budget });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ApiError(ErrorCode.TemplateInvalidSyntax, `The ${part} could not be rendered with TemplateModel: ${reason}`);
  }
}

export function applyTemplateModel(model: unknown, parts: Parts): Parts {
  if (typeof model !== 'object' || model === null || Array.isArray(model)) throw bad("The field 'TemplateModel' must be an object.");
  const m = model as Record<string, unknown>;
  // The three parts share one render budget (templates/render.ts, RenderBudget): past it, 1122 as above.
  const budget = new RenderBudget();
  return {
    subject: render('Subject', parts.subject, m, budget),
    htmlBody: parts.htmlBody === null ? null : render('HtmlBody', parts.htmlBody, m, budget),
    textBody: parts.textBody === null ? null : render('TextBody', parts.textBody, m, budget),
  };
}
