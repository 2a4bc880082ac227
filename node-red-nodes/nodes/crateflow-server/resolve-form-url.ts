import type { NodeAPI } from '../node-red-api.js';
import { findServer } from './find-server.js';

const ENV_REFERENCE = /^\$\{(\w+)\}$/;

/**
 * The address the editor's "Test connection" should call for the URL typed in the form.
 *
 * A URL written `${CRATEFLOW_URL}` (as in the example flows) is filled in by Node-RED when the flow is deployed, from
 * the flow's environment variables and then Node-RED's own. The editor sends the unresolved text, so: use what the
 * deployed config node resolved it to; else Node-RED's process environment; else say that it resolves at deploy.
 */
export function resolveFormUrl(RED: NodeAPI, typed: unknown, id: unknown): { url: string } | { error: string } {
  const text = typeof typed === 'string' ? typed.trim() : '';
  const reference = ENV_REFERENCE.exec(text);
  if (!reference) {
    return /^https?:\/\/[^/]/i.test(text) ? { url: text } : { error: 'url: must be an http:// or https:// address' };
  }
  const deployed = typeof id === 'string' ? findServer(RED, id) : null;
  if (deployed && /^https?:\/\//i.test(deployed.client.baseUrl)) return { url: deployed.client.baseUrl };
  const fromEnvironment = process.env[reference[1] ?? ''];
  if (fromEnvironment && /^https?:\/\/[^/]/i.test(fromEnvironment)) return { url: fromEnvironment };
  return {
    error: `url: ${text} is filled in from the flow's environment variables when the flow is deployed; deploy, then test again (or type the address)`,
  };
}
