// What crosses the writer thread's boundary (send-writer.ts <-> send-writer-thread.ts). Structured clone keeps
// plain data only: an ApiError (a class instance) travels as its fields and is rebuilt on the other side, and
// a database error keeps its code, which the group commit's retry decision reads (isUniqueViolation).
import { ApiError } from '../errors.js';
import type { SendOutcome } from './types.js';
import type { UnitResult } from './send-unit.js';

export interface WireApiError {
  errorCode: number;
  status?: number;
  extra?: Record<string, unknown>;
}

export interface WireError {
  message: string;
  code?: string;
  apiError?: WireApiError;
}

export type WireResult = { outcomes: SendOutcome[] } | { error: WireError };

export function toWireResult(r: UnitResult): WireResult {
  if ('outcomes' in r) return r;
  return { error: { message: r.error.message, apiError: { errorCode: r.error.errorCode, status: r.error.status, extra: r.error.extra } } };
}

export function fromWireError(e: WireError): Error {
  if (e.apiError) return new ApiError(e.apiError.errorCode, e.message, e.apiError.status, e.apiError.extra);
  return Object.assign(new Error(e.message), e.code ? { code: e.code } : {});
}

export function fromWireResult(r: WireResult): UnitResult {
  if ('outcomes' in r) return r;
  return { error: fromWireError(r.error) as ApiError };
}
