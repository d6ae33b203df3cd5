import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import type { App } from '../../types.js';
import { confirmByToken, escapeHtml } from '../../../domain/sender-signatures/confirmation.js';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`;

/** The public confirmation link mailed to a new sender signature's address (no token: the link is the proof). */
export default async function confirmRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    '/senders/confirm/:token',
    { config: { auth: 'none' }, schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 1000 }) }) } },
    async (req, reply) => {
      const r = await confirmByToken(ctx, req.params.token);
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      if (r.kind === 'invalid') {
        return reply.status(400).send(page('Link not valid', 'This confirmation link is invalid or has expired. Ask for a new confirmation email.'));
      }
      const what = r.kind === 'confirmed' ? 'is now confirmed' : 'was already confirmed';
      return reply.send(page('Sender signature confirmed', `The sender signature ${escapeHtml(r.email)} ${what}. You can send email from it.`));
    },
  );
}
