/**
 * Child process of emit-transport.test.ts (run with `node --import tsx`): serves one HTTP endpoint,
 * emits one event to it with shared/events' `emit`, and prints whether undici (the global fetch) was
 * loaded then; with `fetch` as its argument it then calls the global fetch, as a control.
 */
import http from 'node:http';
import { buildEvent, emit } from '../../../shared/events/index.js';

const undiciLoaded = (): boolean =>
  (process as unknown as { moduleLoadList: string[] }).moduleLoadList.some((m) => m.includes('undici'));

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 202;
    res.end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
const result = await emit(buildEvent({ id: '1', type: 'dev.landscape.test', source: 'probe' }), {
  sink: url,
});
const afterEmit = undiciLoaded();
if (process.argv[2] === 'fetch') await fetch(url, { method: 'POST', body: '' });
process.stdout.write(`${JSON.stringify({ status: result.status, afterEmit, afterFetch: undiciLoaded() })}\n`);
server.close();
