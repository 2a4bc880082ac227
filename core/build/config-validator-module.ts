import standalone from 'ajv/dist/standalone/index.js';
import { AppConfig } from '../config/app-config.schema.js';
import { createAjv, withoutId } from '../schema/ajv.js';

/**
 * The source of a module that stands in for core/config/app-config-validator.ts in the bundle: the same
 * validator (same ajv options, defaults applied, verbose errors), compiled now as ajv's standalone code. The
 * bundler runs this at build time (bundle-crateflow.ts), never the service.
 */
export function configValidatorModule(): string {
  const ajv = createAjv(false, { source: true, esm: true });
  const code = standalone.default(ajv, ajv.compile(withoutId(AppConfig)));
  return `${code}\nexport function appConfigValidator() { return validate0; }\n`;
}
