/**
 * Binary-mode CloudEvents on the wire for the bench: built and encoded with `shared/events` before
 * any clock starts, and POSTed over plain `node:http` (one keep-alive Agent for load; a fresh
 * connection per attempt while polling a process that is still starting).
 */
import { Agent, request } from 'node:http';
import { buildEvent, encodeBinary } from '../../shared/events/index.js';

export const BENCH_EVENT_TYPE = 'dev.landscape.bench.noop';
export const BENCH_EVENT_SOURCE = '/bench/runtime';

export interface WireEvent {
  headers: Record<string, string>;
  body: Buffer;
}

/** Event `i` of a batch, encoded in binary mode (ce-* headers, JSON body). */
export function wireEvent(batch: string, i: number): WireEvent {
  const event = buildEvent({
    id: `${batch}-${i}`,
    type: BENCH_EVENT_TYPE,
    source: BENCH_EVENT_SOURCE,
    datacontenttype: 'application/json',
    data: { batch, i },
  });
  const { headers, body } = encodeBinary(event);
  const bytes = Buffer.from(body);
  return { headers: { ...headers, 'content-length': String(bytes.length) }, body: bytes };
}

export function wireEvents(batch: string, count: number): WireEvent[] {
  return Array.from({ length: count }, (_, i) => wireEvent(batch, i));
}

/** POSTs the event; resolves with the status once the response is read, rejects on network errors. */
export function post(url: URL, event: WireEvent, agent: Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: event.headers,
        agent,
      },
      (res) => {
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.resume();
      },
    );
    req.on('error', reject);
    req.end(event.body);
  });
}

/** POSTs and throws unless the answer is 2xx (for a pool that counts failures). */
export async function postOk(url: URL, event: WireEvent, agent: Agent | false): Promise<void> {
  const status = await post(url, event, agent);
  if (status < 200 || status > 299) throw new Error(`HTTP ${status} from ${url.href}`);
}

export function keepAliveAgent(sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets });
}
