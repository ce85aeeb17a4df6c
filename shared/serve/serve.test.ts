import http from 'node:http';
import * as ff from '@google-cloud/functions-framework';
import { serveFunction } from './index.js';

ff.cloudEvent('serve-test-slow', async () => {
  await new Promise((r) => setTimeout(r, 300));
});

/** A binary-mode CloudEvent POST over the given agent; resolves with the status. */
function post(port: number, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent,
        headers: {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': '1',
          'ce-type': 't',
          'ce-source': '/s',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

it('close() lets the in-flight request finish, then drops its kept-alive connection at once', async () => {
  const serving = await serveFunction({ name: 'serve-test-slow', port: 0, host: '127.0.0.1' });
  const agent = new http.Agent({ keepAlive: true });
  try {
    const inFlight = post(serving.port, agent);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await serving.close();
    // the request was answered, and close() did not wait for the 5 s keep-alive timeout
    expect(await inFlight).toBe(204);
    expect(Date.now() - started).toBeLessThan(3_000);
  } finally {
    agent.destroy();
  }
});
