/**
 * The watch verb of the REST handler (./rest.ts): a chunked stream of watch events for a list
 * path with `watch=true`, ended by `timeoutSeconds` (default 30–60 min, as kube-apiserver) or by
 * the client; a Table view when the client asks for one.
 */
import type { Scope } from '../registry/operations.js';
import { metadataOnly, outputKind, watchOptions } from './request.js';
import type { RestCall, ServerContext } from './context.js';
import { parseIncludeObject, tableGroupVersion } from './table/index.js';
import { startWatch, type WatchOptions } from '../storage/watch.js';

/** Whether the client asked for a Table (`Accept: ...;as=Table`). */
export function wantsTable(call: RestCall): boolean {
  return outputKind(call.req.headers.accept) === 'table';
}

export function watch(ctx: ServerContext, call: RestCall, scope: Scope): void {
  const opts: WatchOptions & { timeoutSeconds?: number } = watchOptions(
    call.url.searchParams,
    metadataOnly(call.req.headers.accept, scope.def, 'watch'),
  );
  if (wantsTable(call)) {
    opts.table = {
      includeObject: parseIncludeObject(call.url.searchParams.get('includeObject')),
      groupVersion: tableGroupVersion(call.req.headers.accept),
    };
  }
  const { res } = call;
  ctx.ops.matcher(scope.def, opts); // selector errors answer 400 before the stream starts
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache, private',
  });
  res.flushHeaders();
  // nothing is written once the response ended (a write after end is an 'error' event on it)
  const stop = startWatch(ctx.ops, ctx.store, scope, opts, {
    write: (line) => {
      if (!res.writableEnded) res.write(line);
    },
  });
  if (!stop) {
    res.end();
    return;
  }
  const timeout = (opts.timeoutSeconds ?? 1800 + Math.floor(Math.random() * 1800)) * 1000;
  const close = (): void => {
    clearTimeout(timer);
    stop();
  };
  const timer = setTimeout(() => {
    close();
    res.end();
  }, timeout);
  res.on('close', close);
}
