/**
 * Child process of emit-transport.test.ts (run with `node --import tsx`): serves one HTTP endpoint,
 * emits one event to it with shared/events' `emit`, and prints whether undici (the global fetch) was
 * loaded then; with `fetch` as its argument it then calls the global fetch, as a control; with
 * `plane` it emits through the embedded event plane's sender instead (httpFetch behind the
 * ingress and function auth wrappers, as triggers/plane builds it) and prints the Authorization
 * header the endpoint got.
 */
import http from 'node:http';
import { buildEvent, emit, httpFetch } from '../../../shared/events/index.js';
import { withIngressAuth } from '../../../triggers/broker/index.js';
import { withFunctionAuth } from '../../../triggers/plane/index.js';

const undiciLoaded = (): boolean =>
  (process as unknown as { moduleLoadList: string[] }).moduleLoadList.some((m) => m.includes('undici'));

let auth: string | undefined;
const server = http.createServer((req, res) => {
  auth = req.headers.authorization;
  req.resume();
  req.on('end', () => {
    res.statusCode = 202;
    res.end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
const plane = withFunctionAuth(withIngressAuth(httpFetch, 'ingress-token', url), 'function-token', url);
const result = await emit(buildEvent({ id: '1', type: 'dev.landscape.test', source: 'probe' }), {
  sink: url,
  ...(process.argv[2] === 'plane' ? { fetch: plane } : {}),
});
const afterEmit = undiciLoaded();
if (process.argv[2] === 'fetch') await fetch(url, { method: 'POST', body: '' });
const out = { status: result.status, afterEmit, afterFetch: undiciLoaded(), ...(auth ? { auth } : {}) };
process.stdout.write(`${JSON.stringify(out)}\n`);
server.close();
