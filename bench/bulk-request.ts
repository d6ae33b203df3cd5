// bench/bulk-request: the newsletter that bench:bulk and bench:bulk-serve send: `recipients` entries over 100
// domains, each with its own TemplateModel, and optionally one attachment of `attachmentBytes`.
export function bulkRequestBody(from: string, recipients: number, attachmentBytes = 0): string {
  return JSON.stringify({
    From: `Bench <${from}>`,
    MessageStream: 'broadcast',
    Subject: 'News for {{name}}',
    HtmlBody: '<html><body><p>Hello {{name}}, this month: {{topic}}.</p><a href="https://example.net/n/1">Read it</a></body></html>',
    TextBody: 'Hello {{name}}, this month: {{topic}}.',
    Tag: 'newsletter',
    Attachments: attachmentBytes ? [{ Name: 'issue.pdf', ContentType: 'application/pdf', Content: Buffer.alloc(attachmentBytes, 7).toString('base64') }] : [],
    Messages: Array.from({ length: recipients }, (_, i) => ({ To: `reader${i}@d${i % 100}.example`, TemplateModel: { name: `Reader ${i}`, topic: 'gardens' } })),
  });
}
