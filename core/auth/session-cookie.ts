/** The name of the login session cookie. */
export const SESSION_COOKIE = 'crateflow_session';

const TOKEN = /^[A-Za-z0-9._~-]{16,256}$/;

/**
 * The `Set-Cookie` value that starts a session: HttpOnly (scripts cannot read it), SameSite=Lax (other sites'
 * forms and scripts do not send it), Path=/, and Secure when the client reached us over https.
 */
export function sessionCookie(token: string, options: { secure: boolean; maxAgeSeconds?: number }): string {
  if (!TOKEN.test(token)) throw new Error('the auth plugin returned a session token that is not cookie-safe (expected 16-256 URL-safe characters)');
  return cookie(token, options.secure, options.maxAgeSeconds);
}

/** The `Set-Cookie` value that makes the browser forget the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return cookie('', secure, 0);
}

function cookie(value: string, secure: boolean, maxAgeSeconds: number | undefined): string {
  const parts = [`${SESSION_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`);
  if (secure) parts.push('Secure');
  return parts.join('; ');
}
