/**
 * Optional members every plugin instance may have. The server calls `start()` once before serving and
 * `stop()` once at shutdown (stop your timers and close sockets there); `health()` is asked for the operator
 * view and `/health`.
 *
 * @example
 * { async start() { await ping(); }, async stop() { cancelTimer(); }, async health() { return { ok: true }; } }
 */
export interface PluginLifecycle {
  start?(): Promise<void>;
  stop?(): Promise<void>;
  health?(): Promise<PluginHealth>;
}

/**
 * A plugin's view of its own health: `ok: false` with a message when its external service is unreachable.
 *
 * @example
 * { ok: false, message: 'slskd unreachable: connect ECONNREFUSED 127.0.0.1:5030' }
 */
export interface PluginHealth {
  ok: boolean;
  message?: string;
}
