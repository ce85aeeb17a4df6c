/**
 * The replicas of one function: a queue of requests (Knative's activator buffers while there is
 * no capacity), replicas started on demand (cold start) and stopped after the idle window (scale
 * to zero), at most containerConcurrency requests per replica, at most max-scale replicas. A
 * replica that dies with requests in flight is replaced and those requests are delivered again.
 */
import { randomBytes } from 'node:crypto';
import { decideScale, nextIdleDeadline, pickReplica, type ReplicaView, type ScaleLimits } from './scale.js';
import type { ForwardError } from './replica.js';
import { Replica, type ForwardRequest, type ForwardResponse, type LogStream } from './replica.js';
import type { FunctionService } from './services.js';

export interface PoolDeps {
  /** The function's `server.js`. */
  entry: string;
  /** The environment of a new replica (resolves Secret/ConfigMap refs). */
  envFor(service: FunctionService, podName: string): Promise<Record<string, string>>;
  onLine(service: FunctionService, podName: string, stream: LogStream, line: string): void;
  pods?: PodHooks;
  events?: PoolEvents;
  limits: ScaleLimits;
  nodeArgs?: readonly string[];
  now?: () => number;
  log(level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void;
  /** Deliveries of one request to replicas that died under it before it is answered 502 (default 5). */
  maxRedeliveries?: number;
}

/** The Pod object of each replica, kept by the caller (the API server of the main cluster). */
export interface PodHooks {
  created(service: FunctionService, podName: string, pid: number | undefined): Promise<void>;
  deleted(service: FunctionService, podName: string): Promise<void>;
}

export interface PoolEvents {
  coldStart?(service: FunctionService, ms: number): void;
  answered?(service: FunctionService, status: number): void;
  redelivered?(service: FunctionService): void;
  replicas?(service: FunctionService, count: number): void;
}

export interface PoolStatus {
  name: string;
  namespace: string;
  replicas: number;
  ready: number;
  inFlight: number;
  queued: number;
  coldStarts: number;
  answered: number;
  redelivered: number;
  desired: number;
  pods: string[];
}

interface Pending {
  req: ForwardRequest;
  deliveries: number;
  resolve(res: ForwardResponse): void;
}

interface Slot extends ReplicaView {
  replica: Replica;
}

const text = (status: number, message: string): ForwardResponse => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body: Buffer.from(`${message}\n`),
});

/** `<revision>-deployment-<10 chars>-<5 chars>`, as a Knative revision's pods are named. */
export function podName(revision: string, rand: (n: number) => string = randomSuffix): string {
  return `${revision}-deployment-${rand(10)}-${rand(5)}`;
}

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(n: number): string {
  return [...randomBytes(n)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
}

export class FunctionPool {
  private readonly queue: Pending[] = [];
  private readonly slots = new Map<string, Slot>();
  private coldStarts = 0;
  private answered = 0;
  private redelivered = 0;
  private desired = 0;
  private startFailures = 0;
  private notBefore = 0;
  /** Set while a ready replica's idle window is running: the pool decides again when it ends. */
  private idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private draining = false;
  private readonly now: () => number;

  constructor(
    readonly service: FunctionService,
    private readonly deps: PoolDeps,
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** Queues the request; resolves with the replica's answer (or the activator's 502/503/504). */
  handle(req: ForwardRequest): Promise<ForwardResponse> {
    if (this.stopped) return Promise.resolve(text(503, 'the landscape is stopping'));
    return new Promise((resolve) => {
      this.queue.push({ req, deliveries: 0, resolve });
      this.reconcile();
    });
  }

  /**
   * Scale decisions and dispatch; called on every change, and when an idle window ends (a timer
   * armed only while one runs: an idle pool with no replica wakes for nothing).
   */
  reconcile(): void {
    if (this.stopped) return;
    const decision = decideScale(
      { queued: this.queue.length, replicas: [...this.slots.values()], now: this.now() },
      this.deps.limits,
    );
    this.desired = decision.desired;
    for (const id of decision.stop) this.stopSlot(id, 'idle');
    if (decision.spawn > 0 && !this.draining && this.now() >= this.notBefore) {
      for (let i = 0; i < decision.spawn; i++) this.spawn();
    }
    this.pump();
    this.armIdleTimer();
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const now = this.now();
    const due = nextIdleDeadline([...this.slots.values()], now, this.deps.limits.idleMs);
    if (due === undefined) return;
    this.idleTimer = setTimeout(() => this.reconcile(), due - now);
    this.idleTimer.unref();
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const view = pickReplica([...this.slots.values()], this.service.containerConcurrency);
      if (view === undefined) return;
      const slot = this.slots.get(view.id)!;
      void this.run(this.queue.shift()!, slot);
    }
  }

  private async run(p: Pending, slot: Slot): Promise<void> {
    slot.inFlight++;
    p.deliveries++;
    try {
      const res = await slot.replica.forward(p.req);
      this.answer(p, res);
    } catch (err) {
      await this.failed(p, slot, err as ForwardError);
    } finally {
      slot.inFlight--;
      if (slot.inFlight === 0) slot.idleSince = this.now();
      this.reconcile();
    }
  }

  private answer(p: Pending, res: ForwardResponse): void {
    this.answered++;
    this.deps.events?.answered?.(this.service, res.status);
    p.resolve(res);
  }

  private async failed(p: Pending, slot: Slot, err: ForwardError): Promise<void> {
    if (err.timedOut) {
      this.answer(p, text(504, `${this.service.name}: ${err.message}`));
      return;
    }
    // A reset connection: did the replica die under the request?
    await Promise.race([slot.replica.exited, new Promise((r) => setTimeout(r, 500))]);
    if (!slot.replica.alive && p.deliveries < (this.deps.maxRedeliveries ?? 5)) {
      this.redelivered++;
      this.deps.events?.redelivered?.(this.service);
      this.deps.log('warn', 'replica died with a request in flight: delivering it again', {
        function: this.service.name,
        pod: slot.id,
      });
      this.queue.unshift(p);
      return;
    }
    this.answer(p, text(502, `${this.service.name}: ${err.message}`));
  }

  private spawn(): void {
    const name = podName(this.service.revision);
    const started = this.now();
    const slot: Slot = { id: name, state: 'starting', inFlight: 0, idleSince: started, replica: undefined! };
    this.slots.set(name, slot);
    this.deps
      .envFor(this.service, name)
      .then((env) => this.launch(slot, env, started))
      .catch((err: unknown) => this.startFailed(slot, err));
  }

  private launch(slot: Slot, env: Record<string, string>, started: number): void {
    if (this.stopped) {
      this.slots.delete(slot.id);
      return;
    }
    const replica = new Replica({
      id: slot.id,
      entry: this.deps.entry,
      env,
      nodeArgs: this.deps.nodeArgs,
      onLine: (stream, line) => this.deps.onLine(this.service, slot.id, stream, line),
    });
    slot.replica = replica;
    // the Pod is written while the process starts; the replica takes traffic once both are there,
    // as on a cluster a Pod exists before its container (other replicas read it for lock liveness)
    const pod = this.deps.pods?.created(this.service, slot.id, replica.pid).catch((err: unknown) => {
      // a replica stopped with the landscape may lose its Pod before the Pod is complete
      if (this.draining || this.stopped) return;
      this.deps.log('warn', 'could not create the Pod of a replica', { pod: slot.id, error: String(err) });
    });
    this.emitReplicas();
    // a start that fails ends in an exit (the replica kills itself on its start timeout): see exited()
    replica.ready
      .then(() => pod)
      .then(
        () => this.becameReady(slot, started),
        () => undefined,
      );
    void replica.exited.then((info) => this.exited(slot, info));
  }

  private becameReady(slot: Slot, started: number): void {
    if (slot.state !== 'starting' || this.slots.get(slot.id) !== slot) return;
    slot.state = 'ready';
    slot.idleSince = this.now();
    this.startFailures = 0;
    this.coldStarts++;
    this.deps.events?.coldStart?.(this.service, this.now() - started);
    this.deps.log('info', 'replica ready', {
      function: this.service.name,
      pod: slot.id,
      ms: this.now() - started,
    });
    this.reconcile();
  }

  /** A replica that never served (or whose environment could not be built): back off, then retry. */
  private startFailed(slot: Slot, err: unknown): void {
    this.slots.delete(slot.id);
    if (this.stopped) return;
    this.startFailures++;
    const backoff = Math.min(30_000, 500 * 2 ** (this.startFailures - 1));
    this.notBefore = this.now() + backoff;
    this.deps.log('error', 'replica failed to start', {
      function: this.service.name,
      pod: slot.id,
      error: err instanceof Error ? err.message : String(err),
      retryInMs: backoff,
    });
    if (this.startFailures >= 3) {
      for (const p of this.queue.splice(0)) this.answer(p, text(503, `${this.service.name} cannot start`));
    }
    setTimeout(() => this.reconcile(), backoff).unref();
  }

  private exited(slot: Slot, info: { code: number | null; signal: NodeJS.Signals | null }): void {
    this.deps.pods?.deleted(this.service, slot.id).catch(() => undefined);
    if (slot.state === 'starting' && !this.draining) {
      this.startFailed(slot, new Error(`exited before serving (code ${info.code}, signal ${info.signal})`));
      this.emitReplicas();
      return;
    }
    this.slots.delete(slot.id);
    // while the landscape stops, a replica that exits is not replaced: nothing to warn about
    if (slot.state === 'ready' && !this.draining && !this.stopped) {
      this.deps.log('warn', 'replica exited; it will be replaced when needed', {
        function: this.service.name,
        pod: slot.id,
        code: info.code,
        signal: info.signal,
      });
    }
    this.emitReplicas();
    this.reconcile();
  }

  private stopSlot(id: string, why: string): void {
    const slot = this.slots.get(id);
    if (!slot || slot.state === 'stopping') return;
    slot.state = 'stopping';
    this.deps.log('info', 'replica stopping', { function: this.service.name, pod: id, why });
    slot.replica?.terminate();
  }

  /** The Pod was deleted: the replica is killed at once (its requests are delivered again). */
  podDeleted(name: string): void {
    this.killReplica(name, 'Pod deleted: killing its replica');
  }

  /** SIGKILLs one replica (its requests in flight are delivered again); false when there is none. */
  killReplica(name: string, why: string): boolean {
    const slot = this.slots.get(name);
    if (!slot?.replica) return false;
    this.deps.log('warn', why, { function: this.service.name, pod: name });
    slot.replica.kill();
    return true;
  }

  private emitReplicas(): void {
    this.deps.events?.replicas?.(this.service, [...this.slots.values()].filter((s) => s.replica).length);
  }

  status(): PoolStatus {
    const slots = [...this.slots.values()];
    return {
      name: this.service.name,
      namespace: this.service.namespace,
      replicas: slots.filter((s) => s.state !== 'stopping').length,
      ready: slots.filter((s) => s.state === 'ready').length,
      inFlight: slots.reduce((n, s) => n + s.inFlight, 0),
      queued: this.queue.length,
      coldStarts: this.coldStarts,
      answered: this.answered,
      redelivered: this.redelivered,
      desired: this.desired,
      pods: slots.map((s) => s.id),
    };
  }

  /**
   * No new replicas from now on; requests still go to the replicas that run (what is left queued
   * is answered by stop()). The first step of stopping: a replica that exits meanwhile (Ctrl-C
   * reaches the whole process group) is not replaced by one that would find Redis gone.
   */
  quiesce(): void {
    this.draining = true;
  }

  /** Stops every replica (SIGTERM, SIGKILL after `graceMs`) and answers what is queued with 503. */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.idleTimer);
    for (const p of this.queue.splice(0)) p.resolve(text(503, 'the landscape is stopping'));
    const slots = [...this.slots.values()].filter((s) => s.replica);
    for (const s of slots) {
      s.state = 'stopping';
      s.replica.terminate();
    }
    const timer = setTimeout(() => slots.forEach((s) => s.replica.kill()), graceMs);
    await Promise.all(slots.map((s) => s.replica.exited));
    clearTimeout(timer);
  }
}
