import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';

/** The Fastify instance every route module receives, typed by TypeBox schemas. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression<RawServerDefault>,
  RawReplyDefaultExpression<RawServerDefault>,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export type AuthInfo =
  | { kind: 'none' }
  | { kind: 'account'; accountId: number }
  | { kind: 'server'; accountId: number; serverId: number; testMode: boolean };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which token the route needs; 'none' for public routes (health, tracking, links). Default 'none'. */
    auth?: 'server' | 'account' | 'none';
    /** The route accepts the SERVICE_API_TEST token (sending routes). */
    allowTestToken?: boolean;
    /** ErrorCode used when the route's schema rejects the request (default 403). */
    validationErrorCode?: number;
  }
  interface FastifyRequest {
    auth: AuthInfo;
  }
  interface FastifyInstance {
    /** Resolves once every route's validator is compiled (app.ts compiles them after listening). */
    validatorsCompiled(): Promise<void>;
  }
}

/** Narrows request.auth for server-token routes. */
export function serverAuth(auth: AuthInfo): { accountId: number; serverId: number; testMode: boolean } {
  if (auth.kind !== 'server') throw new Error('route needs a server token');
  return auth;
}

/** Narrows request.auth for account-token routes. */
export function accountAuth(auth: AuthInfo): { accountId: number } {
  if (auth.kind !== 'account') throw new Error('route needs an account token');
  return auth;
}
