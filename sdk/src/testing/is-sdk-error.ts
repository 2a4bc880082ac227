/**
 * Whether `err` is one of the sdk's errors with `code`. Compared by `code` rather than `instanceof`, because a
 * plugin may bring its own copy of the sdk (another install, a bundle).
 */
export function isSdkError(err: unknown, code: 'retry-later' | 'bad-credentials' | 'not-found' | 'http-request-failed'): boolean {
  return err instanceof Error && 'code' in err && err.code === code;
}
