/**
 * Test-only replica chaos (off by default): while switched on, the activator SIGKILLs one running
 * replica of a random function at random moments, as a node failure or an OOM kill would. The
 * killed replica's requests in flight are delivered again by its pool (FunctionPool.failed), and
 * the pool starts a new replica when work is queued. Used by `npm run drill`.
 */
export interface ChaosSpec {
  /** Mean time between kills; each wait is a uniform 0.5..1.5 × this. */
  killEveryMs: number;
  /** Only these functions (Service names); default every function. */
  functions?: readonly string[];
  /** Injected randomness (default Math.random). */
  random?: () => number;
}

/** What the chaos needs from the activator. */
export interface ChaosTarget {
  status(): readonly { name: string; namespace: string; pods: readonly string[]; ready: number }[];
  killReplica(namespace: string, name: string, pod: string): boolean;
}

/** The replica to kill next: a uniform pick among the ready replicas of the chosen functions. */
export function pickVictim(
  pools: ReturnType<ChaosTarget['status']>,
  spec: Pick<ChaosSpec, 'functions'>,
  random: () => number,
): { namespace: string; name: string; pod: string } | undefined {
  const candidates = pools
    .filter((p) => p.ready > 0 && (!spec.functions || spec.functions.includes(p.name)))
    .flatMap((p) => p.pods.map((pod) => ({ namespace: p.namespace, name: p.name, pod })));
  if (candidates.length === 0) return undefined;
  return candidates[Math.min(candidates.length - 1, Math.floor(random() * candidates.length))];
}

export class ReplicaChaos {
  private current: ChaosSpec | undefined;
  private timer: NodeJS.Timeout | undefined;
  private killed = 0;

  constructor(private readonly target: ChaosTarget) {}

  get spec(): ChaosSpec | undefined {
    return this.current;
  }

  /** Replicas killed since the start. */
  get kills(): number {
    return this.killed;
  }

  set(spec: ChaosSpec | undefined): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.current = spec;
    if (spec) this.schedule(spec);
  }

  private schedule(spec: ChaosSpec): void {
    const random = spec.random ?? Math.random;
    this.timer = setTimeout(
      () => {
        const victim = pickVictim(this.target.status(), spec, random);
        if (victim && this.target.killReplica(victim.namespace, victim.name, victim.pod)) this.killed++;
        if (this.current === spec) this.schedule(spec);
      },
      spec.killEveryMs * (0.5 + random()),
    );
    this.timer.unref();
  }
}
