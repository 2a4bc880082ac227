import type { Logger } from '../logger.js';

/** One recorded log call: its level, message and fields (child bindings merged in). */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: Record<string, unknown>;
}

/**
 * A silent {@link Logger} that records every call, so tests can assert what a plugin logged. Children share
 * the parent's `entries`. Pass `{ echo: true }` to also print each entry to stderr while debugging a test.
 *
 * @example
 * const log = new RecordingLogger();
 * log.child({ job: 'sync' }).warn({ status: 503 }, 'library unreachable');
 * log.entries[0]   // { level: 'warn', msg: 'library unreachable', fields: { job: 'sync', status: 503 } }
 */
export class RecordingLogger implements Logger {
  readonly entries: LogEntry[];

  constructor(
    private readonly options: { echo?: boolean } = {},
    private readonly bindings: Record<string, unknown> = {},
    shared?: LogEntry[],
  ) {
    this.entries = shared ?? [];
  }

  debug(objOrMsg: object | string, msg?: string): void {
    this.record('debug', objOrMsg, msg);
  }

  info(objOrMsg: object | string, msg?: string): void {
    this.record('info', objOrMsg, msg);
  }

  warn(objOrMsg: object | string, msg?: string): void {
    this.record('warn', objOrMsg, msg);
  }

  error(objOrMsg: object | string, msg?: string): void {
    this.record('error', objOrMsg, msg);
  }

  child(bindings: Record<string, unknown>): RecordingLogger {
    return new RecordingLogger(this.options, { ...this.bindings, ...bindings }, this.entries);
  }

  /** Entries at `level` (all levels when omitted). */
  at(level?: LogEntry['level']): LogEntry[] {
    return level ? this.entries.filter((e) => e.level === level) : [...this.entries];
  }

  private record(level: LogEntry['level'], objOrMsg: object | string, msg?: string): void {
    const entry: LogEntry =
      typeof objOrMsg === 'string'
        ? { level, msg: objOrMsg, fields: { ...this.bindings } }
        : { level, msg: msg ?? '', fields: { ...this.bindings, ...objOrMsg } };
    this.entries.push(entry);
    if (this.options.echo) process.stderr.write(`${level}: ${entry.msg} ${JSON.stringify(entry.fields)}\n`);
  }
}
