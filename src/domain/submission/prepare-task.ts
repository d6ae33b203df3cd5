// The CPU work of one submitted message, run on a parser thread (infra/threads): the MIME parse
// (from-mime.ts) and the API's validation with the envelope (envelope.ts). The main thread gets the
// validated message (plain data) and only checks and stores it. A refusal comes back as the ApiError's
// fields with the stage it happened at: a parse refusal is the whole submission's, a validation refusal the
// message's outcome (as acceptMessages reports it).
import type { PreparedMessage } from '../accepting/types.js';
import { ApiError, ErrorCode } from '../errors.js';
import { prepareSubmission } from './envelope.js';
import { parseSubmission, type ParsedSubmission } from './from-mime.js';

export interface SubmissionInput {
  raw: Uint8Array;
  rcptTo: string[];
}

export interface Refusal {
  errorCode: number;
  message: string;
  status: number | null;
}

export type PreparedSubmission = { message: PreparedMessage } | { stage: 'parse' | 'prepare'; refusal: Refusal };

const refusal = (err: ApiError): Refusal => ({ errorCode: err.errorCode, message: err.message, status: err.status ?? null });

export async function prepareSubmitted(input: SubmissionInput): Promise<PreparedSubmission> {
  const raw = Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength);
  let parsed: ParsedSubmission;
  try {
    parsed = await parseSubmission(raw);
  } catch (err) {
    if (err instanceof ApiError) return { stage: 'parse', refusal: refusal(err) };
    return { stage: 'parse', refusal: { errorCode: ErrorCode.InvalidEmailRequest, message: `The message could not be parsed as MIME: ${(err as Error).message}`, status: null } };
  }
  try {
    return { message: prepareSubmission(parsed, input.rcptTo) };
  } catch (err) {
    if (err instanceof ApiError) return { stage: 'prepare', refusal: refusal(err) };
    throw err;
  }
}
