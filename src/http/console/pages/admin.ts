// The account's pages: servers (list and new: servers.ts; a server's settings: server-edit.ts; deleting one:
// server-delete.ts), API tokens (tokens.ts), console users (users.ts); sender signatures and domains are in
// senders.ts. Everyone may look; only admins change (checked per action by the router, not only hidden).
import type { AppContext } from '../../../domain/app-context.js';
import type { ConsoleRouter } from '../router.js';
import { registerSenders } from './senders.js';
import { registerServerDelete } from './server-delete.js';
import { registerServerEdit } from './server-edit.js';
import { registerServers } from './servers.js';
import { registerTokens } from './tokens.js';
import { registerUsers } from './users.js';

export function registerAdmin(r: ConsoleRouter, ctx: AppContext): void {
  registerServers(r, ctx);
  registerServerEdit(r, ctx);
  registerServerDelete(r, ctx);
  registerTokens(r, ctx);
  registerUsers(r, ctx);
  registerSenders(r, ctx);
}
