/**
 * The built-in kinds the embedded API server serves, as a Kubernetes 1.32 API server serves them.
 * Nothing is built at import time: each call returns fresh definitions.
 */
import type { ResourceDef } from '../../api/types.js';
import { customResourceDefinitionDef } from './apiextensions.js';
import { deploymentDef, statefulSetDef } from './apps.js';
import { horizontalPodAutoscalerDef } from './autoscaling.js';
import { configMapDef, namespaceDef, secretDef, serviceAccountDef } from './core-config.js';
import { daemonSetDef } from './daemonset.js';
import { endpointSliceDef } from './endpointslice.js';
import { eventDef } from './event.js';
import { leaseDef } from './lease.js';
import { nodeDef } from './node.js';
import { podDef } from './pod.js';
import { replicaSetDef } from './replicaset.js';
import { replicationControllerDef } from './replicationcontroller.js';
import { rbacDefs } from './rbac.js';
import { endpointsDef, serviceDef } from './service.js';

export function builtinResources(): ResourceDef[] {
  return [
    namespaceDef(),
    secretDef(),
    configMapDef(),
    serviceDef(),
    serviceAccountDef(),
    podDef(),
    replicationControllerDef(),
    endpointsDef(),
    eventDef(),
    nodeDef(),
    endpointSliceDef(),
    leaseDef(),
    deploymentDef(),
    replicaSetDef(),
    statefulSetDef(),
    daemonSetDef(),
    horizontalPodAutoscalerDef(),
    customResourceDefinitionDef(),
    ...rbacDefs(),
  ];
}
