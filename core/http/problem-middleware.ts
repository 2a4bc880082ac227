import type { Context, Next } from 'koa';
import { AppError } from '../errors/app-error.js';
import { MethodNotAllowedError } from '../errors/method-not-allowed-error.js';
import { UnauthorizedError } from '../errors/unauthorized-error.js';
import { sendJson } from './send-json.js';
import { loggedPath } from './request-context.js';

export const PROBLEM_TYPE_PREFIX = 'urn:crateflow:problem:';

/** The body of an `application/problem+json` answer (RFC 9457). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

interface ExposedHttpError {
  status: number;
  expose: true;
  message: string;
  headers?: Record<string, string>;
}

function isExposedHttpError(err: unknown): err is ExposedHttpError {
  return (
    typeof err === 'object' && err !== null && 'expose' in err && err.expose === true &&
    'status' in err && typeof err.status === 'number' && err.status >= 400 && err.status < 500
  );
}

const TITLES: Record<number, string> = {
  400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Content Too Large',
  415: 'Unsupported Media Type', 429: 'Too Many Requests', 501: 'Not Implemented',
};

/** Writes a problem answer. */
export function sendProblem(ctx: Context, problem: Problem): void {
  ctx.status = problem.status;
  sendJson(ctx, problem, 'application/problem+json');
}

/**
 * The first middleware: turns every error into problem+json. An AppError keeps its status and code (detail and
 * extensions only below 500); an exposed Koa HttpError (bad JSON, too large, 405) keeps its status and message;
 * anything else is a bare 500 and is logged — clients never see a stack trace or an internal message.
 */
export function problemDetails() {
  return async function problemMiddleware(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err: unknown) {
      // A decision link's path carries its token: the problem names the route, as the log does.
      const instance = loggedPath(ctx.path);
      if (err instanceof AppError) {
        // Extensions come first so they can never overwrite the standard members.
        const extensions = err.clientFault ? { ...err.extensions(), detail: err.message } : {};
        const problem: Problem = { ...extensions, type: PROBLEM_TYPE_PREFIX + err.code, title: err.title, status: err.status, instance };
        if (err instanceof UnauthorizedError) ctx.set('WWW-Authenticate', err.challenge);
        if (err instanceof MethodNotAllowedError && err.allowed) ctx.set('Allow', err.allowed);
        if (!err.clientFault) ctx.app.emit('error', err, ctx);
        sendProblem(ctx, problem);
        return;
      }
      if (isExposedHttpError(err)) {
        const code = httpErrorCode(err.status);
        if (err.headers) for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
        sendProblem(ctx, { type: PROBLEM_TYPE_PREFIX + code, title: TITLES[err.status] ?? 'Bad Request', status: err.status, detail: cleanMessage(err), instance });
        return;
      }
      ctx.app.emit('error', err, ctx);
      sendProblem(ctx, { type: PROBLEM_TYPE_PREFIX + 'internal', title: 'Internal Server Error', status: 500, instance });
    }
  };
}

function httpErrorCode(status: number): string {
  switch (status) {
    case 400: return 'malformed-request';
    case 405: return 'method-not-allowed';
    case 413: return 'payload-too-large';
    case 415: return 'unsupported-media-type';
    default: return `http-${status}`;
  }
}

// Body parser messages can quote the offending input; keep them short and free of raw bytes.
function cleanMessage(err: ExposedHttpError): string {
  if (err.status === 413) return 'the request body exceeds the 1 MiB limit';
  if (err.status === 400 && /json/i.test(err.message)) return `the request body is not valid JSON: ${err.message.slice(0, 200)}`;
  return err.message.slice(0, 300);
}
