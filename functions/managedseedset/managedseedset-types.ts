/**
 * Inputs and outputs of the ManagedSeedSet decision (managedseedset.ts).
 */
import type { Seed, Shoot } from '../../shared/api/core.js';
import type { ManagedSeed, ManagedSeedSet } from '../../shared/api/seedmanagement.js';
import type { SetStatus } from './managedseedset-replica.js';

/** A ManagedSeedSet as stored: its pending replica may carry the wider reasons this controller writes. */
export interface ObservedManagedSeedSet extends Omit<ManagedSeedSet, 'status'> {
  status?: SetStatus;
}

/** What the adapter runs, in order. Annotations are set (merge patch) before the delete. */
export type ManagedSeedSetAction =
  | { op: 'add-finalizer'; finalizer: string }
  | { op: 'remove-finalizer'; finalizer: string }
  | { op: 'create-shoot'; shoot: Shoot }
  | { op: 'create-managed-seed'; managedSeed: ManagedSeed }
  /** Retry a failed Shoot: `gardener.cloud/operation: retry`. */
  | { op: 'annotate-shoot'; namespace: string; name: string; annotations: Record<string, string> }
  /** Set `confirmation.gardener.cloud/deletion: "true"`, then delete. */
  | { op: 'delete-shoot'; namespace: string; name: string; annotations: Record<string, string> }
  | { op: 'delete-managed-seed'; namespace: string; name: string };

export type ManagedSeedSetActionOp = ManagedSeedSetAction['op'];

export interface ManagedSeedSetEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface ManagedSeedSetInput {
  set: ObservedManagedSeedSet;
  /** Shoots in the set's namespace matching its selector (each is one replica). */
  shoots: readonly Shoot[];
  /** ManagedSeeds in the set's namespace matching its selector. */
  managedSeeds: readonly ManagedSeed[];
  /** Seeds matching the selector (paired with replicas by name). */
  seeds: readonly Seed[];
  /** Shoots scheduled per seed name (`spec.seedName`); absent or 0: none. */
  scheduledShoots?: Readonly<Record<string, number>>;
  now: Date;
}
