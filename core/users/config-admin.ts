import type { AppConfig } from '../config/app-config.schema.js';

/**
 * The basic-auth user of config.yaml (`ui.auth.username` in basic mode): the first admin, always there. Read here
 * because the household's rules (who may be created, who an API key may belong to) depend on it, whatever plugin
 * checks its password.
 */
export function configAdminOf(auth: AppConfig['ui']['auth']): string | undefined {
  if (!auth.enabled || auth.type !== 'basic') return undefined;
  const username: unknown = (auth as Record<string, unknown>).username;
  return typeof username === 'string' && username !== '' ? username : undefined;
}
