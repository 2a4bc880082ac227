import type { SchemaErrors } from './ajv.js';
import { closestKey } from './closest-key.js';
import { describePattern } from './describe-pattern.js';

/** One problem, located by a path a user recognises (`webhooks[0].timeout_ms`, `body.items[2].artist`). */
export interface PathProblem {
  path: string;
  message: string;
}

/**
 * Turns ajv errors into one readable line per problem. Union failures are collapsed into a single
 * "must be one of" line instead of one line per branch, except when the value's JSON type fits exactly one
 * branch (an object where the union allows one object form or an array): that branch's errors are reported,
 * because they name the field ("body[2].artist: is required", "body: must NOT have more than 1000 items").
 * Unknown keys and missing keys are named.
 */
export function formatSchemaErrors(errors: SchemaErrors | null | undefined, root = ''): PathProblem[] {
  if (!errors) return [];
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const chosen = new Map<AjvError, string>();
  for (const union of unions) {
    const branch = branchForType(union.schema, union.data);
    if (branch !== undefined) chosen.set(union, `${union.schemaPath}/${branch}/`);
  }
  const problems: PathProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (chosen.has(error)) continue; // reported through the errors of its one fitting branch
    const hidden = unions.some((union) => {
      if (union === error || !isInside(error, union)) return false;
      const branch = chosen.get(union);
      return branch === undefined || !error.schemaPath.startsWith(branch);
    });
    if (hidden) continue; // a branch of a union: reported once by the union itself (or not the fitting branch)
    const problem = describe(error, root);
    const line = `${problem.path}\u0000${problem.message}`;
    if (!seen.has(line)) {
      seen.add(line);
      problems.push(problem);
    }
  }
  return problems;
}

type AjvError = SchemaErrors[number];

function describe(error: AjvError, root: string): PathProblem {
  const at = joinPath(root, pointerToPath(error.instancePath));
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const properties: unknown = isRecord(error.parentSchema) ? error.parentSchema.properties : undefined;
      const suggestion = isRecord(properties) ? closestKey(key, Object.keys(properties)) : undefined;
      return { path: at || '(root)', message: `unknown key "${key}"${suggestion ? `; did you mean "${suggestion}"?` : ''}` };
    }
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return { path: at || '(root)', message: describeSize(error.keyword, Number(params.limit)) };
    case 'pattern':
      return { path: at || '(root)', message: describePattern(params.pattern, isRecord(error.parentSchema) ? error.parentSchema.description : undefined, error.data) };
    case 'required':
      return { path: joinPath(at, String(params.missingProperty)), message: 'is required' };
    case 'anyOf':
    case 'oneOf':
      return { path: at || '(root)', message: describeUnion(error.schema) };
    case 'enum':
      return { path: at || '(root)', message: `must be one of ${listValues(params.allowedValues)}` };
    case 'const':
      return { path: at || '(root)', message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'type':
      return { path: at || '(root)', message: `must be ${article(String(params.type))}` };
    default:
      return { path: at || '(root)', message: error.message ?? `fails the ${error.keyword} rule` };
  }
}

/** "must be at least 16 characters long" instead of ajv's "must NOT have fewer than 16 characters". */
function describeSize(keyword: string, limit: number): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (keyword === 'minLength') return limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character')} long`;
  if (keyword === 'maxLength') return `must be at most ${plural(limit, 'character')} long`;
  if (keyword === 'minItems') return `must list at least ${plural(limit, 'item')}`;
  return `must list at most ${plural(limit, 'item')}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `error` comes from inside one of `union`'s branches, for the same value or a value within it. */
function isInside(error: AjvError, union: AjvError): boolean {
  const samePlace = error.instancePath === union.instancePath || error.instancePath.startsWith(`${union.instancePath}/`);
  return samePlace && error.schemaPath.startsWith(`${union.schemaPath}/`);
}

/** The index of the only union branch whose JSON type is the value's, for objects and arrays. */
function branchForType(branches: unknown, value: unknown): number | undefined {
  if (!Array.isArray(branches) || value === null || typeof value !== 'object') return undefined;
  const type = Array.isArray(value) ? 'array' : 'object';
  const fitting = branches.flatMap((branch: unknown, i) => (branch && typeof branch === 'object' && 'type' in branch && branch.type === type ? [i] : []));
  return fitting.length === 1 ? fitting[0] : undefined;
}

function describeUnion(branches: unknown): string {
  if (Array.isArray(branches)) {
    const consts = branches.map((b: unknown) => (b && typeof b === 'object' && 'const' in b ? b.const : undefined));
    if (consts.length > 0 && consts.every((c) => c !== undefined)) return `must be one of ${listValues(consts)}`;
  }
  return 'does not match any allowed form';
}

function listValues(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => JSON.stringify(v)).join(', ') : String(values);
}

function article(type: string): string {
  if (type === 'integer' || type === 'array' || type === 'object') return `an ${type}`;
  return `a ${type}`;
}

/** `/webhooks/0/timeout_ms` → `webhooks[0].timeout_ms` */
function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

export function joinPath(base: string, rest: string): string {
  if (!base) return rest;
  if (!rest) return base;
  return rest.startsWith('[') ? `${base}${rest}` : `${base}.${rest}`;
}
