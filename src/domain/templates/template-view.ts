import type { TemplateRow } from './store.js';

/** The short form: list items and the create/edit answer (docs/reference/templates.md). */
export function templateSummary(t: TemplateRow) {
  return {
    TemplateId: t.id,
    Name: t.name,
    Alias: t.alias,
    TemplateType: t.template_type,
    LayoutTemplate: t.layout_template,
    Active: t.active === 1,
  };
}

export function templateRecord(t: TemplateRow) {
  return {
    ...templateSummary(t),
    Subject: t.subject,
    HtmlBody: t.html_body,
    TextBody: t.text_body,
    AssociatedServerId: t.server_id,
  };
}
