/**
 * Fault injection for the broker's deliveries to triggers: duplicates, delays and reordering, as
 * a real at-least-once broker may produce them, so tests and drills can show that the functions
 * cope. Off unless a spec is set (the embedded landscape keeps one instance, off, for all its
 * brokers: `runtime.brokerFaults`).
 *
 * Each delivery of an event to a matching trigger asks `plan()` what to do: it answers the hold
 * (ms) before each copy to send, `[0]` when off. A duplicate is a second, independent delivery of
 * the same event (same id) with its own hold, retries and dead-lettering. Randomness is drawn in
 * a fixed order per delivery, and only for the faults that are switched on: the duplicate coin
 * (duplicateShare > 0), then for each copy the delay coin (delayShare > 0), the delay
 * (delayMs > 0, when the coin hit) and the reorder hold (reorderWindowMs > 0).
 *
 * `refuseIngress` is the sink itself going down: the broker ingress (./ingress.ts) answers 503 to
 * every event POSTed to it while it is set, so the senders' retries fail and their events are
 * dropped (the ApiServerSource adapter, the PingSources) or handed back (a function's emit), as
 * when Knative's broker ingress is unavailable. Deliveries already accepted are not affected.
 */

export interface BrokerFaultSpec {
  /** Share (0..1) of deliveries sent twice (the second copy is an independent delivery with the same event id). */
  duplicateShare?: number;
  /** Share (0..1) of deliveries held back before sending, by a random 0..delayMs. */
  delayShare?: number;
  delayMs?: number;
  /** Reorder: every delivery is held a random 0..reorderWindowMs, so later events overtake earlier ones. */
  reorderWindowMs?: number;
  /** The ingress refuses every event with 503 (the sink is down). Draws no randomness. */
  refuseIngress?: boolean;
  /** [0, 1) (default Math.random). */
  random?: () => number;
}

export interface BrokerFaultCounts {
  /** Deliveries sent a second time. */
  duplicated: number;
  /** Copies held back by the delay fault. */
  delayed: number;
  /** Copies held back by the reorder window. */
  reordered: number;
  /** Events the ingress refused (refuseIngress). */
  refused: number;
}

/** The problems of a spec (none: empty). */
export function faultSpecProblems(spec: BrokerFaultSpec): string[] {
  const problems: string[] = [];
  const share = (name: 'duplicateShare' | 'delayShare'): void => {
    const v = spec[name];
    if (v !== undefined && !(Number.isFinite(v) && v >= 0 && v <= 1))
      problems.push(`${name} must be a number from 0 to 1, got ${v}`);
  };
  const ms = (name: 'delayMs' | 'reorderWindowMs'): void => {
    const v = spec[name];
    if (v !== undefined && !(Number.isFinite(v) && v >= 0))
      problems.push(`${name} must be a number of milliseconds >= 0, got ${v}`);
  };
  share('duplicateShare');
  share('delayShare');
  ms('delayMs');
  ms('reorderWindowMs');
  return problems;
}

const positive = (v: number | undefined): v is number => v !== undefined && v > 0;

/** The switchable fault injector shared by the brokers of a runtime. */
export class BrokerFaults {
  private current: BrokerFaultSpec | undefined;
  private readonly tally: BrokerFaultCounts = {
    duplicated: 0,
    delayed: 0,
    reordered: 0,
    refused: 0,
  };

  constructor(spec?: BrokerFaultSpec) {
    this.set(spec);
  }

  /** Switches the faults (undefined: off). A bad spec throws a RangeError and changes nothing. */
  set(spec: BrokerFaultSpec | undefined): void {
    if (spec !== undefined) {
      const problems = faultSpecProblems(spec);
      if (problems.length > 0) throw new RangeError(`broker faults: ${problems.join('; ')}`);
    }
    this.current = spec === undefined ? undefined : { ...spec };
  }

  get spec(): BrokerFaultSpec | undefined {
    return this.current;
  }

  /** What was injected since the start (not reset by `set`). */
  counts(): BrokerFaultCounts {
    return { ...this.tally };
  }

  /** For one event POSTed to the ingress: whether to refuse it (counted when refused). */
  refusesIngress(): boolean {
    if (this.current?.refuseIngress !== true) return false;
    this.tally.refused++;
    return true;
  }

  /** For one delivery: the hold in ms before each copy to send (`[0]` when off). */
  plan(): number[] {
    const spec = this.current;
    if (spec === undefined) return [0];
    const random = spec.random ?? Math.random;
    const copies = positive(spec.duplicateShare) && random() < spec.duplicateShare ? 2 : 1;
    if (copies === 2) this.tally.duplicated++;
    return Array.from({ length: copies }, () => this.hold(spec, random));
  }

  private hold(spec: BrokerFaultSpec, random: () => number): number {
    let ms = 0;
    if (positive(spec.delayShare) && random() < spec.delayShare && positive(spec.delayMs)) {
      ms += Math.floor(random() * spec.delayMs);
      this.tally.delayed++;
    }
    if (positive(spec.reorderWindowMs)) {
      ms += Math.floor(random() * spec.reorderWindowMs);
      this.tally.reordered++;
    }
    return ms;
  }
}
