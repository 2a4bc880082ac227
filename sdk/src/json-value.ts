/**
 * A value that survives a JSON round trip unchanged: what plugin storage keeps and what event data carries.
 *
 * @example
 * const cursor: JsonValue = { offset: 500, done: false };
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
