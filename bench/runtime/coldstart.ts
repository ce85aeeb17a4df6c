/**
 * Cold start and idle memory of one function process.
 *
 * Cold start is measured from just before `spawn` to the first CloudEvent acknowledged: the event
 * is POSTed (a fresh connection each attempt) every `pollMs` until the process answers 2xx. For
 * bare `node -e 0` it is spawn to exit. The variants run round-robin, one process at a time, so a
 * drift in machine load touches every variant alike.
 *
 * Idle memory is VmRSS after the process acknowledged its first event and then sat idle.
 */
import { performance } from 'node:perf_hooks';
import { childEnv, freePort, rssBytes, sleep, type Child, type ChildSet } from './children.js';
import { post, wireEvent, type WireEvent } from './http.js';
import type { FunctionVariant, Variant } from './variants.js';

export interface PollOptions {
  /** Pause between POST attempts while the process starts. */
  pollMs: number;
  /** Give up (and report the process's output) after this long. */
  timeoutMs: number;
}

export interface Serving {
  child: Child;
  url: URL;
  /** Spawn to first event acknowledged. */
  ms: number;
}

let instance = 0;

async function attempt(url: URL, event: WireEvent): Promise<number> {
  try {
    return await post(url, event, false);
  } catch {
    return 0;
  }
}

async function pollUntilAcknowledged(child: Child, url: URL, o: PollOptions): Promise<void> {
  const event = wireEvent('cold', instance);
  const deadline = performance.now() + o.timeoutMs;
  for (;;) {
    const last = await attempt(url, event);
    if (last >= 200 && last <= 299) return;
    if (child.hasExited() || performance.now() > deadline) {
      const why = child.hasExited() ? `exited (${String(await child.exited)})` : `timed out`;
      throw new Error(
        `${url.href}: ${why} before acknowledging an event (last status ${last || 'none'})\n${child.output()}`,
      );
    }
    await sleep(o.pollMs);
  }
}

/** Starts one replica of the function and waits for its first acknowledged event. */
export async function startServing(
  children: ChildSet,
  variant: FunctionVariant,
  o: PollOptions,
): Promise<Serving> {
  const port = await freePort();
  const url = new URL(`http://127.0.0.1:${port}/`);
  instance += 1;
  const env = childEnv({ ...variant.env, PORT: String(port), POD_NAME: `${variant.fn}-bench-${instance}` });
  const t0 = performance.now();
  const child = children.spawn(process.execPath, [...variant.nodeArgs, variant.file], env);
  try {
    await pollUntilAcknowledged(child, url, o);
  } catch (err) {
    await children.kill(child);
    throw err;
  }
  return { child, url, ms: performance.now() - t0 };
}

async function bareOnce(children: ChildSet): Promise<number> {
  const t0 = performance.now();
  const child = children.spawn(process.execPath, ['-e', '0'], childEnv());
  const code = await child.exited;
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`node -e 0 exited with ${String(code)}\n${child.output()}`);
  return ms;
}

/** One cold start of the variant, in ms; the process is killed afterwards. */
export async function coldStartOnce(children: ChildSet, variant: Variant, o: PollOptions): Promise<number> {
  if (variant.kind === 'bare') return bareOnce(children);
  const s = await startServing(children, variant, o);
  await children.kill(s.child);
  return s.ms;
}

export interface ColdStartOptions extends PollOptions {
  runs: number;
  /** Unmeasured rounds first (page cache, the bench's own JIT). */
  warmupRounds: number;
}

/** `runs` cold starts of every variant, round-robin; ms per variant id. */
export async function coldStarts(
  children: ChildSet,
  variants: readonly Variant[],
  o: ColdStartOptions,
): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(variants.map((v) => [v.id, []]));
  for (let round = 0; round < o.warmupRounds + o.runs; round++) {
    for (const v of variants) {
      const ms = await coldStartOnce(children, v, o);
      if (round >= o.warmupRounds) samples.get(v.id)!.push(ms);
    }
  }
  return samples;
}

export interface MemoryOptions extends PollOptions {
  samples: number;
  idleMs: number;
}

export const BARE_IDLE_ID = 'node (idle loop, no server)';

async function idleRss(children: ChildSet, variant: FunctionVariant, o: MemoryOptions): Promise<number> {
  const s = await startServing(children, variant, o);
  try {
    await sleep(o.idleMs);
    return rssBytes(s.child.pid);
  } finally {
    await children.kill(s.child);
  }
}

async function bareIdleRss(children: ChildSet, idleMs: number): Promise<number> {
  const child = children.spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], childEnv());
  try {
    await sleep(idleMs);
    return rssBytes(child.pid);
  } finally {
    await children.kill(child);
  }
}

/**
 * RSS (bytes) per variant id, `samples` times: in each round every variant runs at once, each read
 * `idleMs` after its own first event (bare node: `idleMs` after spawn, as a baseline).
 */
export async function idleMemory(
  children: ChildSet,
  variants: readonly FunctionVariant[],
  o: MemoryOptions,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>([BARE_IDLE_ID, ...variants.map((v) => v.id)].map((id) => [id, []]));
  for (let round = 0; round < o.samples; round++) {
    const [bare, ...rss] = await Promise.all([
      bareIdleRss(children, o.idleMs),
      ...variants.map((v) => idleRss(children, v, o)),
    ]);
    out.get(BARE_IDLE_ID)!.push(bare);
    variants.forEach((v, i) => out.get(v.id)!.push(rss[i]));
  }
  return out;
}
