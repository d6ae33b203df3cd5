// JSON bodies: an empty body is "no body" (archive/unarchive are sent with Content-Length: 0), broken JSON is
// 422/402, and strings that cannot be stored faithfully (NUL, unpaired UTF-16 surrogates) are refused up
// front so that no handler has to think about them and no database rejects them with a 500.
//
// A body of THREAD_BYTES or more (the batch and bulk routes take up to 50 MB) is parsed and checked on a
// parser thread and rebuilt here in bounded steps (infra/json-thread-pieces.ts): one JSON.parse of it would
// hold the event loop for a second and more. Both paths answer the same refusals with the same messages.
import { ApiError, ErrorCode, ServiceBusy } from '../domain/errors.js';
import { refusalOf, parseOnThread, type JsonRefusal } from '../infra/json-thread-pieces.js';
import { PoolFull, WorkerLost, type ThreadPool } from '../infra/threads/pool.js';
import type { App } from './types.js';

/** Below this a body is parsed on the event loop: a few milliseconds, less than the hand-off to a thread. */
export const THREAD_BYTES = 512 * 1024;

function refusal(r: JsonRefusal): ApiError {
  if (r === 'invalid') return new ApiError(ErrorCode.InvalidJson, 'The request body is not valid JSON.');
  if (r === 'deep') return new ApiError(ErrorCode.InvalidJson, 'The JSON body is nested too deeply.');
  return new ApiError(ErrorCode.InvalidJson, 'The JSON body contains a NUL character or an unpaired UTF-16 surrogate.');
}

function parseHere(body: Buffer): unknown {
  const text = body.toString('utf8').trim();
  if (text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refusal('invalid');
  }
  const r = refusalOf(parsed);
  if (r) throw refusal(r);
  return parsed;
}

async function parseThreaded(threads: Pick<ThreadPool, 'run'>, body: Buffer): Promise<unknown> {
  try {
    const r = await parseOnThread(threads, body);
    if ('refused' in r) throw refusal(r.refused);
    return r.value;
  } catch (err) {
    if (err instanceof PoolFull || err instanceof WorkerLost) throw new ServiceBusy('Too many large request bodies are being read at once; send again shortly.');
    throw err;
  }
}

/** `threads`: the parser pool for large bodies; without it every body is parsed on the event loop. */
export function registerJsonParser(app: App, threads?: Pick<ThreadPool, 'run'>): void {
  // Only JSON is spoken: any other Content-Type with a body is 415 (ErrorCode 409).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    const buf = body as Buffer;
    if (threads && buf.length >= THREAD_BYTES) {
      parseThreaded(threads, buf).then(
        (v) => done(null, v),
        (err: Error) => done(err, undefined),
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = parseHere(buf);
    } catch (err) {
      return done(err as Error, undefined);
    }
    done(null, parsed);
  });
}
