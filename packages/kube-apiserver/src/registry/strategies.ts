/**
 * The strategy table of the registry: one entry per kind whose rules differ from the generic
 * strategy (./generic-strategy.ts), keyed by `<group>/<Kind>`, as kube-apiserver wires one
 * pkg/registry/<group>/<kind>/strategy.go per resource (and gardener-apiserver
 * pkg/apiserver/registry/<group>/<kind>/strategy.go for the Gardener kinds, served here as CRDs).
 * The hooks and their order are ./rest-strategy.ts; the verbs that call them are ./operations.ts.
 *
 * | kind                                   | what differs                                              |
 * | -------------------------------------- | --------------------------------------------------------- |
 * | core Namespace                         | finalizer + phase on create, Terminating, `finalize`      |
 * | core Secret                            | stringData folded into data, type Opaque                  |
 * | core Pod, Event, Node, Namespace, Secret | field labels; core kinds: field label error wording     |
 * | rbac Role, ClusterRole, *RoleBinding   | defaults + ValidateRole…; roleRef immutable               |
 * | core.gardener.cloud Shoot              | operation annotation raises generation; seedName rules;   |
 * |                                        | `binding` subresource                                     |
 * | core.gardener.cloud Seed, seedmgmt *   | operation annotation raises generation; ManagedSeedSet    |
 * |                                        | status rules                                              |
 * | apps Deployment, ReplicaSet, StatefulSet | defaults; selector ↔ template labels, pod template;     |
 * |                                        | selector immutable; StatefulSet's locked spec fields      |
 * | apps DaemonSet                         | defaults; selector ↔ template labels, pod template,       |
 * |                                        | update strategy; selector immutable; template generation  |
 * |                                        | annotation (./daemonset-strategy.ts)                      |
 * | core ReplicationController             | defaults (selector, labels from the template); selector ↔ |
 * |                                        | template labels, pod template; `status.replicas` field    |
 * |                                        | label (./replicationcontroller-strategy.ts)               |
 * | core Pod (+ field labels)              | defaults, Pending + qosClass; pod spec rules; update only |
 * |                                        | images, deadline, tolerations (./pod-strategy.ts)         |
 * | core ConfigMap, Secret                 | data keys; Secret type immutable; `immutable: true` lock  |
 * | core Service                           | defaults; cluster IP + node ports allocated; clusterIP    |
 * |                                        | immutable (./service-strategy.ts)                         |
 *
 * Strategies only: no controller runs a DaemonSet or a ReplicationController here (the workload
 * simulation, ../controllers/workloads.ts, drives Deployments, ReplicaSets and StatefulSets only),
 * so they are stored and validated but get no Pods and no status.
 */
import type { ResourceDef } from '../api/types.js';
import { prepareRbacWrite, RBAC_KINDS } from '../auth/rbac/validation.js';
import { RBAC_GROUP } from '../auth/rbac/types.js';
import { DEPLOYMENT_STRATEGY, REPLICASET_STRATEGY, STATEFULSET_STRATEGY } from './apps-strategy.js';
import { CONFIGMAP_STRATEGY } from './configmap-strategy.js';
import {
  EVENT_STRATEGY,
  LEGACY_FIELD_LABEL_STRATEGY,
  NAMESPACE_STRATEGY,
  NODE_STRATEGY,
  POD_STRATEGY,
  REPLICATION_CONTROLLER_FIELDS,
  SECRET_STRATEGY,
} from './core-strategy.js';
import { DAEMONSET_STRATEGY } from './daemonset-strategy.js';
import { GENERIC_STRATEGY, keepStatus } from './generic-strategy.js';
import { POD_RULES } from './pod-strategy.js';
import { REPLICATION_CONTROLLER_RULES } from './replicationcontroller-strategy.js';
import type { KindStrategy, RestStrategy } from './rest-strategy.js';
import { checkSeedManagementStatusUpdate, prepareSeedManagementUpdate } from './seedmanagement-strategy.js';
import { BINDING_SUBRESOURCE, checkShootUpdate } from './shoot-binding.js';
import { SERVICE_RULES } from './service-strategy.js';
import { prepareShootUpdate, SHOOT_GROUP } from './shoot-strategy.js';

/** rbac.authorization.k8s.io: defaulted and validated together on every write (./auth/rbac/validation.ts). */
const RBAC_STRATEGY: KindStrategy = {
  prepareForCreate: (def, obj) => prepareRbacWrite(def, obj),
  prepareForUpdate: (def, prev, next) => prepareRbacWrite(def, next, prev),
};

/** core.gardener.cloud Shoot (./shoot-strategy.ts; who sets spec.seedName: ./shoot-binding.ts). */
const SHOOT_STRATEGY: KindStrategy = {
  prepareForUpdate: (def, prev, next) => prepareShootUpdate(def, prev, keepStatus(def, prev, next)),
  validateUpdate: checkShootUpdate,
  subresources: [BINDING_SUBRESOURCE],
};

/** Seed, ManagedSeed, ManagedSeedSet (./seedmanagement-strategy.ts). */
const SEED_MANAGEMENT_STRATEGY: KindStrategy = {
  prepareForUpdate: (def, prev, next) => prepareSeedManagementUpdate(def, prev, keepStatus(def, prev, next)),
  validateStatusUpdate: checkSeedManagementStatusUpdate,
};

const KINDS: Record<string, KindStrategy> = {
  '/Namespace': NAMESPACE_STRATEGY,
  '/Secret': SECRET_STRATEGY,
  '/ConfigMap': CONFIGMAP_STRATEGY,
  '/Pod': { ...POD_STRATEGY, ...POD_RULES },
  '/Event': EVENT_STRATEGY,
  '/Node': NODE_STRATEGY,
  '/Service': { ...LEGACY_FIELD_LABEL_STRATEGY, ...SERVICE_RULES },
  '/ReplicationController': { ...REPLICATION_CONTROLLER_FIELDS, ...REPLICATION_CONTROLLER_RULES },
  'apps/Deployment': DEPLOYMENT_STRATEGY,
  'apps/ReplicaSet': REPLICASET_STRATEGY,
  'apps/StatefulSet': STATEFULSET_STRATEGY,
  'apps/DaemonSet': DAEMONSET_STRATEGY,
  ...Object.fromEntries(RBAC_KINDS.map((kind) => [`${RBAC_GROUP}/${kind}`, RBAC_STRATEGY])),
  [`${SHOOT_GROUP}/Shoot`]: SHOOT_STRATEGY,
  [`${SHOOT_GROUP}/Seed`]: SEED_MANAGEMENT_STRATEGY,
  'seedmanagement.gardener.cloud/ManagedSeed': SEED_MANAGEMENT_STRATEGY,
  'seedmanagement.gardener.cloud/ManagedSeedSet': SEED_MANAGEMENT_STRATEGY,
};

const STRATEGIES = new Map<string, RestStrategy>(
  Object.entries(KINDS).map(([key, kind]) => [key, { ...GENERIC_STRATEGY, ...kind }]),
);

/** The strategy of a kind: its entry of the table over the generic strategy. */
export function strategyFor(def: Pick<ResourceDef, 'group' | 'kind'>): RestStrategy {
  return STRATEGIES.get(`${def.group}/${def.kind}`) ?? GENERIC_STRATEGY;
}

/** Whether a kind serves a subresource of its own (beyond status and scale). */
export function servesSubresource(
  def: Pick<ResourceDef, 'group' | 'kind'>,
  name: string | undefined,
): boolean {
  return name !== undefined && strategyFor(def).subresources.includes(name);
}
