/**
 * The Functions Framework's own server for one registered CloudEvent function, built as its bin
 * builds it (GoogleCloudPlatform/functions-framework-nodejs src/main.ts: `parseOptions` of the
 * command line and environment — PORT, FUNCTION_TARGET, CLOUD_RUN_TIMEOUT_SECONDS, IGNORED_ROUTES,
 * LOG_EXECUTION_ID — then `getServer(userFunction, options)`, and the execution-id log wrapping
 * when LOG_EXECUTION_ID is on), not the testing helper (`getTestServer`, whose fixed options drop
 * the request timeout and the logging options).
 *
 * The package exports only `.` and `./testing`; `getServer`, `parseOptions` and
 * `loggingHandlerAddExecutionContext` are what its `build/src/main.js` imports, taken here by file
 * from the one installed copy (node, jest and esbuild all resolve a relative path past the
 * exports map). The function itself comes through the public `getFunction`, so the registry the
 * handler registered with is the one read even when packages are left external.
 *
 * Two things on top, both answers the framework itself gets wrong for a CloudEvent function:
 * - a request that is not a POST never reaches it: the framework's background-event middleware
 *   reads `req.body` of a GET, which Express 5 leaves undefined, and answers 500 with the stack
 *   (src/middleware/background_event_to_cloud_event.ts). `/favicon.ico` and `/robots.txt` answer
 *   404 (what the framework answers for an HTTP function), any other path 405 with `Allow: POST`;
 * - errors are JSON log lines (the framework prints `err.stack` as text, src/logger.ts
 *   sendCrashResponse): a function's error is turned into an error whose `stack` is its JSON line,
 *   so the one line the framework prints is that line; a request the framework's middleware
 *   refuses (a body that is not JSON, too large, ...) is answered by a last error handler with its
 *   status and a short text, and logged as a JSON line. No answer carries a stack.
 *
 * And one the framework has no way to give: a reply. Each request is handled inside a reply slot
 * (shared/events/reply.ts); an event the function offers there (the request said `Prefer:
 * reply`) is the answer: its binary-mode headers set, its body returned to the framework, which
 * sends it with 200. Without an offer the answer is the framework's own (204).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { CloudEventFunction } from '@google-cloud/functions-framework';
import { getFunction } from '@google-cloud/functions-framework/testing';
import { takeReply, withReplySlot } from '../events/reply.js';
import { getServer } from '../../node_modules/@google-cloud/functions-framework/build/src/server.js';
import { parseOptions } from '../../node_modules/@google-cloud/functions-framework/build/src/options.js';
import { loggingHandlerAddExecutionContext } from '../../node_modules/@google-cloud/functions-framework/build/src/logger.js';

export type Env = Readonly<Record<string, string | undefined>>;
export type LogLine = (level: 'warn' | 'error', msg: string, fields: Record<string, unknown>) => string;

/** One JSON line in the shape of shared/log (level, ts, logger, msg, fields). */
export function jsonLogLine(
  level: string,
  msg: string,
  fields: Record<string, unknown> = {},
  now = new Date(),
): string {
  return JSON.stringify({ level, ts: now.toISOString(), logger: 'serve', msg, ...fields });
}

const defaultLine: LogLine = (level, msg, fields) => jsonLogLine(level, msg, fields);

function attr(ce: unknown, key: string): string | undefined {
  const v = typeof ce === 'object' && ce !== null ? (ce as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * The error a failed function rethrows: its `stack` is the JSON line the framework prints. An
 * error that names itself expected (`FunctionNotReadyError`: a bad config) gets a short line
 * without a stack, once per event.
 */
export function loggedError(err: unknown, fn: string, ce: unknown, line: LogLine = defaultLine): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  const expected = e.name === 'FunctionNotReadyError';
  const out = new Error(e.message, { cause: err });
  out.stack = line('error', 'event not handled: answered 500, the broker retries it', {
    function: fn,
    id: attr(ce, 'id'),
    type: attr(ce, 'type'),
    subject: attr(ce, 'subject'),
    error: e.message,
    ...(expected ? {} : { stack: e.stack }),
  });
  return out;
}

function wrap(fn: CloudEventFunction, name: string, line: LogLine): CloudEventFunction {
  return async (ce) => {
    try {
      const result: unknown = await fn(ce);
      // an event the function offered as its reply (shared/events/reply.ts) is the answer's body
      const reply = takeReply();
      return reply === undefined ? result : Buffer.from(reply);
    } catch (err) {
      throw loggedError(err, name, ce, line);
    }
  };
}

/** What answers a request that is not a POST (status, headers), or undefined for a POST. */
export function notAPost(
  method: string | undefined,
  url: string | undefined,
): { status: number; allow?: string } | undefined {
  if (method === 'POST') return undefined;
  const path = (url ?? '/').split('?')[0];
  if (path === '/favicon.ico' || path === '/robots.txt') return { status: 404 };
  return { status: 405, allow: 'POST' };
}

type ExpressLike = ((req: IncomingMessage, res: ServerResponse) => void) & {
  use(
    handler: (err: unknown, req: IncomingMessage, res: ServerResponse, next: (e?: unknown) => void) => void,
  ): void;
};

function statusOf(err: unknown): number {
  const s =
    (err as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof s === 'number' && s >= 400 && s < 600 ? s : 500;
}

function errorHandler(name: string, line: LogLine, write: (l: string) => void) {
  return (err: unknown, req: IncomingMessage, res: ServerResponse, next: (e?: unknown) => void): void => {
    if (res.headersSent) return next(err);
    const status = statusOf(err);
    const e = err instanceof Error ? err : new Error(String(err));
    write(
      line(status >= 500 ? 'error' : 'warn', 'request refused', {
        function: name,
        status,
        method: req.method,
        path: req.url,
        error: e.message,
        ...(status >= 500 ? { stack: e.stack } : {}),
      }),
    );
    res.statusCode = status;
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.end(STATUS_CODES[status] ?? 'Error');
  };
}

export interface FrameworkServerOptions {
  env?: Env;
  /** Where the error handler's lines go (default stderr). */
  write?: (line: string) => void;
  line?: LogLine;
}

/** The framework's server for the CloudEvent function registered as `name` (not listening yet). */
export function frameworkServer(name: string, o: FrameworkServerOptions = {}): Server {
  const fn = getFunction(name) as CloudEventFunction | undefined;
  if (!fn) throw new Error(`no function "${name}" is registered with the Functions Framework`);
  const line = o.line ?? defaultLine;
  const write = o.write ?? ((l: string): void => void process.stderr.write(`${l}\n`));
  const options = {
    ...parseOptions(['node', 'server.js'], { ...(o.env ?? process.env) }),
    target: name,
    signatureType: 'cloudevent' as const,
  };
  if (options.enableExecutionId) loggingHandlerAddExecutionContext();
  const server = getServer(wrap(fn, name, line), options);
  const app = server.listeners('request')[0] as ExpressLike;
  app.use(errorHandler(name, line, write));
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refused = notAPost(req.method, req.url);
    if (!refused) return withReplySlot(req.headers.prefer, res, () => app(req, res));
    res.statusCode = refused.status;
    if (refused.allow) res.setHeader('allow', refused.allow);
    res.end();
  });
  return server;
}
