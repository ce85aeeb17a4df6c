/**
 * Child process of emit-transport.test.ts (run with `node --import tsx`): serves one HTTP endpoint,
 * emits one event to it with shared/events' `emit`, and prints whether undici (the global fetch) was
 * loaded then; with `fetch` as its argument it then calls the global fetch, as a control; with
 * `plane` it emits through the embedded event plane's sender instead (httpFetch behind the
 * ingress and function auth wrappers, as triggers/plane builds it), to an ingress and to a function
 * on another origin, and prints the Authorization header each got.
 */
import http from 'node:http';
import { buildEvent, emit, httpFetch } from '../../../shared/events/index.js';
import { withIngressAuth } from '../../../triggers/broker/index.js';
import { withFunctionAuth } from '../../../triggers/plane/index.js';

const undiciLoaded = (): boolean =>
  (process as unknown as { moduleLoadList: string[] }).moduleLoadList.some((m) => m.includes('undici'));

/** A server that answers 202 and records the Authorization header of each request by path. */
const auth: Record<string, string> = {};
async function listen(): Promise<{ base: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    if (req.headers.authorization) auth[req.url ?? ''] = req.headers.authorization;
    req.resume();
    req.on('end', () => {
      res.statusCode = 202;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => server.close(),
  };
}
// the broker ingress and a function on other origins, as the embedded landscape has them
const ingress = await listen();
const fn = await listen();
const plane = withFunctionAuth(
  withIngressAuth(httpFetch, 'ingress-token', ingress.base),
  'function-token',
  ingress.base,
);
const event = buildEvent({ id: '1', type: 'dev.landscape.test', source: 'probe' });
const viaPlane = process.argv[2] === 'plane' ? { fetch: plane } : {};
const result = await emit(event, { sink: `${ingress.base}/ingress`, ...viaPlane });
if (process.argv[2] === 'plane') await emit(event, { sink: `${fn.base}/function`, ...viaPlane });
const afterEmit = undiciLoaded();
if (process.argv[2] === 'fetch') await fetch(`${ingress.base}/`, { method: 'POST', body: '' });
const out = {
  status: result.status,
  afterEmit,
  afterFetch: undiciLoaded(),
  ...(Object.keys(auth).length > 0 ? { auth } : {}),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
ingress.close();
fn.close();
