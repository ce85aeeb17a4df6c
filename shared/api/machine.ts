/**
 * machine.sapcloud.io/v1alpha1: Machine (machine-controller-manager), as the dependency watchdog's
 * lease probe reads it: label `node=<nodeName>`, `status.currentStatus.phase`, conditions.
 */
import { isOneOf } from '@landscape/apimachinery';
import type { KubeObject, ObjectMeta, Time } from '@landscape/apimachinery';

export const MACHINE_GROUP = 'machine.sapcloud.io';
export const MACHINE_VERSION = 'v1alpha1';
export const MACHINE_API_VERSION = 'machine.sapcloud.io/v1alpha1';

export const MachineLabels = {
  /** On a Machine: the name of its Node. */
  node: 'node',
} as const;

export const MachineAnnotations = {
  /** On a Node: not managed by machine-controller-manager (the lease probe skips it). */
  notManagedByMcm: 'node.machine.sapcloud.io/not-managed-by-mcm',
} as const;

export const MACHINE_PHASES = [
  'Pending',
  'Available',
  'Running',
  'Terminating',
  'Unknown',
  'Failed',
  'CrashLoopBackOff',
] as const;
export type MachinePhase = (typeof MACHINE_PHASES)[number];
export const isMachinePhase: (value: unknown) => value is MachinePhase = isOneOf(MACHINE_PHASES);

/** Node condition type of in-place updates; reasons ReadyForUpdate / UpdateFailed exclude a node. */
export const IN_PLACE_UPDATE_CONDITION = 'InPlaceUpdate';

export interface MachineCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: Time;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

export interface MachineSpec {
  class?: { apiGroup?: string; kind?: string; name?: string };
  providerID?: string;
  nodeTemplate?: { metadata?: Record<string, unknown>; spec?: Record<string, unknown> };
  creationTimeout?: string;
  drainTimeout?: string;
  healthTimeout?: string;
  maxEvictRetries?: number;
  nodeConditions?: string;
}

export interface MachineStatus {
  addresses?: { address: string; type: string }[];
  conditions?: MachineCondition[];
  /** Servers may report phases this product does not know; check with isMachinePhase. */
  currentStatus?: {
    phase?: string;
    lastUpdateTime?: Time;
    timeoutActive?: boolean;
    preserveExpiryTime?: Time;
  };
  lastKnownState?: string;
  lastOperation?: {
    description?: string;
    errorCode?: string;
    lastUpdateTime?: Time;
    state?: string;
    type?: string;
  };
}

export interface Machine extends KubeObject {
  apiVersion?: typeof MACHINE_API_VERSION;
  kind?: 'Machine';
  metadata?: ObjectMeta;
  spec?: MachineSpec;
  status?: MachineStatus;
}
