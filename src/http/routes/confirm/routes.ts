// The public confirmation link mailed to a new sender signature's address (no API token: the link is the
// proof). GET shows a page and changes nothing: mail gateways and link scanners pre-fetch links with GET, and
// a fetch by such a robot must not confirm an address for whoever asked. The page's button POSTs to the same
// link, and only that confirms, as the unsubscribe pages do. Every value the requester chose (the address,
// the name) is escaped.
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../domain/app-context.js';
import type { App } from '../../types.js';
import { confirmByToken, readConfirmToken } from '../../../domain/sender-signatures/confirmation.js';
import { esc, PAGE_HEADERS, publicPage } from '../public/page.js';

const schema = { hide: true, params: Type.Object({ token: Type.String({ maxLength: 1000 }) }) };

function invalid(reply: FastifyReply) {
  return reply.status(400).headers(PAGE_HEADERS).send(publicPage('Link not valid', '<p>This confirmation link is invalid or has expired. Ask for a new confirmation email.</p>'));
}

const who = (email: string, name: string) => (name ? `${esc(name)} &lt;<strong>${esc(email)}</strong>&gt;` : `<strong>${esc(email)}</strong>`);

export default async function confirmRoutes(app: App, ctx: AppContext): Promise<void> {
  // Encapsulated: the page's form posts an empty form-encoded body, which these routes read and ignore.
  await app.register(async (pub: App) => {
    pub.removeAllContentTypeParsers();
    pub.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, _body, done) => done(null, undefined));

    pub.get('/senders/confirm/:token', { config: { auth: 'none' }, schema }, async (req, reply) => {
      const claim = await readConfirmToken(ctx, req.params.token);
      if (claim.kind === 'invalid') return invalid(reply);
      if (claim.confirmed) return reply.headers(PAGE_HEADERS).send(publicPage('Sender signature confirmed', `<p>The sender signature ${who(claim.email, '')} was already confirmed. You can send email from it.</p>`));
      return reply.headers(PAGE_HEADERS).send(
        publicPage(
          'Confirm sender signature',
          `<p>Someone asked to send email as ${who(claim.email, claim.name)} through mailroom.</p>
<p>If that was you or your team, confirm the address. If not, close this page: nothing will be sent as you.</p>
<form method="post"><button type="submit">Confirm this sender signature</button></form>`,
        ),
      );
    });

    pub.post('/senders/confirm/:token', { config: { auth: 'none' }, schema }, async (req, reply) => {
      const r = await confirmByToken(ctx, req.params.token);
      if (r.kind === 'invalid') return invalid(reply);
      const what = r.kind === 'confirmed' ? 'is now confirmed' : 'was already confirmed';
      return reply.headers(PAGE_HEADERS).send(publicPage('Sender signature confirmed', `<p>The sender signature ${who(r.email, '')} ${what}. You can send email from it.</p>`));
    });
  });
}
