import { ROLE_SCOPES, type Role, type Scope } from '@crateflow/sdk';

/**
 * Who may call a route: `public` (no credentials), one scope, or a list of scopes any one of which is enough
 * (`['read', 'request']`: a viewer reads search results, a requester searches to request).
 */
export type Access = 'public' | Scope | readonly Scope[];

/** Scopes in the order they are named to people (and in /auth/info). */
export const SCOPE_ORDER: readonly Scope[] = ['read', 'request', 'decide', 'admin'];

/** The scopes a caller holds: those of its roles, narrowed to `narrowedTo` (an API key's scopes) when given. */
export function scopesOf(roles: readonly Role[], narrowedTo?: readonly Scope[]): ReadonlySet<Scope> {
  const granted = new Set(roles.flatMap((role) => ROLE_SCOPES[role]));
  if (narrowedTo === undefined) return granted;
  return new Set(narrowedTo.filter((scope) => granted.has(scope)));
}

/** Whether scopes satisfy a route's access (public routes are always allowed). */
export function allows(access: Access, scopes: ReadonlySet<Scope>): boolean {
  if (access === 'public') return true;
  const anyOf: readonly Scope[] = typeof access === 'string' ? [access] : access;
  return anyOf.some((scope) => scopes.has(scope));
}

/** The access in words for problems and the OpenAPI document: "the scope `read` or `request`". */
export function describeAccess(access: Exclude<Access, 'public'>): string {
  const anyOf: readonly Scope[] = typeof access === 'string' ? [access] : access;
  return `the scope ${anyOf.map((scope) => `\`${scope}\``).join(' or ')}`;
}

/** Roles from the one that may do most: the role shown for a user whose groups grant several. */
export const ROLE_ORDER: readonly Role[] = ['admin', 'approver', 'requester', 'viewer'];

/** The least role whose scopes satisfy an access (answered as `required_role`, as before scopes existed). */
export function leastRoleFor(access: Exclude<Access, 'public'>): Role {
  const anyOf: readonly Scope[] = typeof access === 'string' ? [access] : access;
  return [...ROLE_ORDER].reverse().find((role) => ROLE_SCOPES[role].some((scope) => anyOf.includes(scope))) ?? 'admin';
}

/** The roles and their scopes in words: "admin = read, request, decide, admin; …". */
export function describeRoleScopes(): string {
  return ROLE_ORDER.map((role) => `${role} = ${ROLE_SCOPES[role].join(', ')}`).join('; ');
}

/** Every scope, for a caller nothing restricts (authentication disabled, nobody signed in). */
export const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPE_ORDER);
