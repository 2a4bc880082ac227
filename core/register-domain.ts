import type { DependencyContainer } from 'tsyringe';
import type { RouteSpec } from './http/route.js';
import type { Database } from './storage/database.js';

/** Part of the composition root: the domain services, their routes and their background work. */
export async function registerDomain(_container: DependencyContainer, _database: Database): Promise<void> {}

export function domainRoutes(_container: DependencyContainer): RouteSpec[] {
  return [];
}

export function startDomain(_container: DependencyContainer): void {}

export async function stopDomain(_container: DependencyContainer): Promise<void> {}
