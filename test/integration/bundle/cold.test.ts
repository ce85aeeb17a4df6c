/**
 * The cold files of the server bundles (local/bundle-cold.ts): iconv-lite's tables and mime-db are
 * not in `server.cjs` but copied to `cold/` beside it; a replica that gets a body in Shift_JIS
 * decodes it with the table from that copy (the framework's text parser, through iconv-lite), and
 * the same start without the copy cannot, so the table really comes from there.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleFunction } from '../../../local/bundle.js';
import { COLD_DIR } from '../../../local/bundle-cold.js';
import { servingPort } from '../../../shared/serve/train.js';

const iconv = createRequire(import.meta.url)('iconv-lite') as {
  encode(s: string, enc: string): Buffer;
};

let dir: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cold-'));
  const b = await bundleFunction({
    name: 'sleeper',
    functionsDir: 'test/integration/activator/functions',
    outDir: dir,
    kind: 'server',
    sourcemap: false,
  });
  file = b.file;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function post(port: number, echoTo: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: {
          'content-type': 'text/plain; charset=shift_jis',
          'ce-specversion': '1.0',
          'ce-id': '1',
          'ce-type': 't',
          'ce-source': '/s',
          'ce-echoto': echoTo,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts `node server.cjs`, POSTs the body, and returns the status and what the event's data was
 * decoded to: the handler's echo, or (the Functions Framework 5 refuses a CloudEvent whose data
 * is a string before the handler runs, with a 500 whose logged error quotes the data) the error
 * the replica logged for the request.
 */
async function postOnce(echoTo: string, body: Buffer): Promise<{ status: number; seen: string }> {
  rmSync(echoTo, { force: true });
  const child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH ?? '', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errors: string[] = [];
  try {
    createInterface({ input: child.stderr }).on('line', (l) => {
      if (l.includes('"error"')) errors.push(String((JSON.parse(l) as { error?: unknown }).error));
    });
    const port = await new Promise<number>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (l) => {
        const p = servingPort(l);
        if (p !== undefined) resolve(p);
      });
      child.once('exit', (code) => reject(new Error(`exited ${String(code)} before serving`)));
    });
    const status = await post(port, echoTo, body);
    // the echo or the request's error line: written before the answer, read from the pipe after it
    const deadline = Date.now() + 10_000;
    while (!existsSync(echoTo) && errors.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const echo = existsSync(echoTo) ? (JSON.parse(readFileSync(echoTo, 'utf8')) as string) : '';
    return { status, seen: `${echo}${errors.join('\n')}` };
  } finally {
    child.kill('SIGKILL');
  }
}

it('copies the tables beside the bundle instead of carrying them', () => {
  const cold = readdirSync(join(dir, 'sleeper', COLD_DIR)).sort();
  expect(cold).toContain('iconv-lite__encodings__tables__shiftjis.json');
  expect(cold).toContain('mime-db__db.json');
  const text = readFileSync(file, 'utf8');
  // a type only mime-db's full table names, and the stub that requires the copy instead
  expect(text).not.toContain('application/vnd.ms-excel');
  expect(text).toContain('mime-db__db.json');
});

it('decodes a Shift_JIS body from the copy, and cannot without it', async () => {
  const text = 'こんにちは、世界';
  const body = iconv.encode(text, 'shift_jis');
  expect(body.toString('utf8')).not.toContain(text);
  const echo = join(dir, 'echo.json');
  const decoded = await postOnce(echo, body);
  expect(decoded.seen).toContain(text);
  expect(decoded.seen).not.toContain('Cannot find module');

  const cold = join(dir, 'sleeper', COLD_DIR);
  renameSync(cold, `${cold}.away`);
  try {
    const without = await postOnce(echo, body);
    // body-parser answers 415 when iconv-lite cannot load the table
    expect(without.status).toBe(415);
    expect(without.seen).not.toContain(text);
    expect(without.seen).toContain('unsupported charset "SHIFT_JIS"');
  } finally {
    renameSync(`${cold}.away`, cold);
  }
}, 60_000);
