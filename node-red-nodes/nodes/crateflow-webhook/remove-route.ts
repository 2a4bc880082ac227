import type { HttpApp, HttpHandler } from '../node-red-api.js';

/**
 * Removes the route whose handler is `handler` from an express 4 app. express has no public API for this; Node-RED's
 * own HTTP In node splices `_router.stack` the same way. Matching on the handler (not the path) leaves another
 * node's route on the same path alone.
 */
export function removeRoute(app: HttpApp, handler: HttpHandler): void {
  const stack = app._router?.stack;
  if (!stack) return;
  for (let index = stack.length - 1; index >= 0; index -= 1) {
    const route = stack[index]?.route;
    if (route && route.stack.some((layer) => layer.handle === handler)) stack.splice(index, 1);
  }
}
