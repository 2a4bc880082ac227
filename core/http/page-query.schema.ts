import { Type } from 'typebox';

/**
 * Paging parameters of every list endpoint. Both are bounded above: a JSON number such as `1e309` (Infinity) or a
 * 70-digit one counts as an integer for the validator, and would reach SQLite's LIMIT/OFFSET as a real number.
 */
export const PageLimit = Type.Integer({ minimum: 1, maximum: 500, default: 50 });
export const PageOffset = Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 });
