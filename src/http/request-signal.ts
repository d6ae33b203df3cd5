// An AbortSignal that aborts when the client goes away before its answer is written: searches and lists
// stop their statements then (domain/read-limit.ts) instead of running on for nobody.
import type { FastifyReply } from 'fastify';

export function requestSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  // ServerResponse's 'close' comes after the answer was written, or when the connection closed first.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
