import { Type } from 'typebox';
import { MAX_ROW_ID } from '../infra/db/util.js';
import { ApiError, ErrorCode } from '../domain/errors.js';

export { MAX_ROW_ID };

/** A positive row id in a path or body. */
export const RowId = () => Type.Integer({ minimum: 1, maximum: MAX_ROW_ID });

/**
 * count (1-500) and offset, both required, as the API's list operations take them
 * (docs/reference/api-conventions.md, "Limits").
 */
export const PageQuery = {
  count: Type.Integer({ minimum: 1, maximum: 500 }),
  offset: Type.Integer({ minimum: 0 }),
};

/**
 * Search endpoints also cap how deep one can page (docs/reference/api-conventions.md, "Limits": count + offset
 * <= 10000).
 */
export function checkDepth(count: number, offset: number, max = 10_000): void {
  if (count + offset > max) throw new ApiError(ErrorCode.InvalidRequestFields, `count + offset must not exceed ${max}.`);
}
