import type { ValidateFunction } from 'ajv';
import { oneUseCompiler } from '../schema/ajv.js';
import { AppConfig } from './app-config.schema.js';

/**
 * The validator of the whole configuration, compiled here on each call (a start calls it once). The bundle that
 * `npm start` runs replaces this module with the same validator compiled at build time, which saves every start
 * the ~40 ms ajv takes to compile it (core/build/config-validator-module.ts).
 */
export function appConfigValidator(): ValidateFunction<AppConfig> {
  return oneUseCompiler()<AppConfig>(AppConfig);
}
