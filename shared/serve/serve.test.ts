import http from 'node:http';
import { jest } from '@jest/globals';
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
  // a keep-alive timeout and a grace far beyond the test's limit: close() resolves within the
  // limit only if it drops the idle kept-alive connection itself (no wall-clock assertion)
  serving.server.keepAliveTimeout = 3_600_000;
  const agent = new http.Agent({ keepAlive: true });
  try {
    const inFlight = post(serving.port, agent);
    await new Promise((r) => setTimeout(r, 50));
    await serving.close(3_600_000);
    expect(await inFlight).toBe(204);
  } finally {
    agent.destroy();
  }
}, 30_000);

ff.cloudEvent('serve-test-ok', () => undefined);
ff.cloudEvent('serve-test-throws', () => {
  throw new Error('boom');
});

describe('the framework server', () => {
  let serving: Awaited<ReturnType<typeof serveFunction>>;
  let stderr: jest.SpiedFunction<typeof process.stderr.write>;
  afterEach(async () => {
    stderr?.mockRestore();
    await serving?.close();
  });

  it.each([
    ['GET', '/favicon.ico', 404],
    ['GET', '/robots.txt', 404],
    ['GET', '/', 405],
    ['HEAD', '/', 405],
    ['PUT', '/x', 405],
  ])('%s %s answers %i with no body, not a 500 with a stack', async (method, path, status) => {
    serving = await serveFunction({ name: 'serve-test-ok', port: 0, host: '127.0.0.1' });
    const res = await fetch(`http://127.0.0.1:${serving.port}${path}`, { method });
    expect(res.status).toBe(status);
    expect(await res.text()).toBe('');
    if (status === 405) expect(res.headers.get('allow')).toBe('POST');
  });

  it('a CloudEvent POST still reaches the function (204)', async () => {
    serving = await serveFunction({ name: 'serve-test-ok', port: 0, host: '127.0.0.1' });
    expect(await post(serving.port, new http.Agent())).toBe(204);
  });

  it("a function's error is answered 500 without a stack and printed as one JSON line", async () => {
    // the framework prints a function's error with console.error (stderr outside jest)
    const printed: unknown[][] = [];
    const spy = jest
      .spyOn(console, 'error')
      .mockImplementation((...args: unknown[]) => void printed.push(args));
    try {
      serving = await serveFunction({ name: 'serve-test-throws', port: 0, host: '127.0.0.1' });
      const res = await fetch(`http://127.0.0.1:${serving.port}/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': '1',
          'ce-type': 't',
          'ce-source': '/s',
        },
        body: '{}',
      });
      expect(res.status).toBe(500);
      expect(await res.text()).not.toMatch(/\bat /);
    } finally {
      spy.mockRestore();
    }
    expect(printed).toHaveLength(1);
    expect(printed[0]).toHaveLength(1);
    const text = String(printed[0][0]);
    expect(text).not.toContain('\n');
    const line = JSON.parse(text) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'error',
      function: 'serve-test-throws',
      id: '1',
      type: 't',
      error: 'boom',
    });
    expect(line.stack).toMatch(/^Error: boom\n\s+at /);
  });

  it('a body the framework cannot parse is answered 400 with a short text and logged as JSON', async () => {
    const lines: string[] = [];
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    serving = await serveFunction({ name: 'serve-test-ok', port: 0, host: '127.0.0.1' });
    const res = await fetch(`http://127.0.0.1:${serving.port}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-id': '1',
        'ce-type': 't',
        'ce-source': '/s',
      },
      body: '{not json',
    });
    stderr.mockRestore();
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('Bad Request');
    const line = JSON.parse(lines.join('').trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'warn', msg: 'request refused', status: 400, method: 'POST' });
    expect(line.stack).toBeUndefined();
  });
});
