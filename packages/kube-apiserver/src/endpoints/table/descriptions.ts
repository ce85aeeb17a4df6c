/**
 * Column descriptions as a Kubernetes 1.32 API server sends them: the `SwaggerDoc()` text of the
 * field each printer column of pkg/printers/internalversion/printers.go points at (or its literal
 * string), and ObjectMeta's for the Name and Age columns.
 */

export const NAME =
  'Name must be unique within a namespace. Is required when creating resources, although some resources ' +
  'may allow a client to request the generation of an appropriate name automatically. Name is primarily ' +
  'intended for creation idempotence and configuration definition. Cannot be updated. More info: ' +
  'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

export const CREATION_TIMESTAMP =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not ' +
  'guaranteed to be set in happens-before order across separate operations. Clients may not set this value. ' +
  'It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. ' +
  'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const CONTAINERS = 'Names of each container in the template.';
export const IMAGES = 'Images referenced by each container in the template.';
export const READY_REPLICAS = 'Number of the pod with ready state';

export const POD = {
  ready: 'The aggregate readiness state of this pod for accepting traffic.',
  status: 'The aggregate status of the containers in this pod.',
  restarts:
    'The number of times the containers in this pod have been restarted and when the last container in ' +
    'this pod has restarted.',
  podIP:
    'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
  nodeName:
    'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling ' +
    'by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes ' +
    'responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod ' +
    'to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
  nominatedNodeName:
    'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled ' +
    'right away as preemption victims receive their graceful termination periods. This field does not ' +
    'guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if ' +
    'other nodes become available sooner. Scheduler may also decide to give the resources on this node to a ' +
    'higher priority pod that is created after preemption. As a result, this field may be different than ' +
    'PodSpec.nodeName when the pod is scheduled.',
  readinessGates:
    'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its ' +
    'containers are ready AND all conditions specified in the readiness gates have status equal to "True" ' +
    'More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
};

export const DEPLOYMENT = {
  updatedReplicas:
    'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
  availableReplicas:
    'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
  selector:
    'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected ' +
    'by this deployment.',
};

export const REPLICA_SET = {
  desired:
    'Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and ' +
    'unspecified. Defaults to 1. More info: ' +
    'https://kubernetes.io/docs/concepts/workloads/controllers/replicaset/#how-a-replicaset-works',
  current:
    'Replicas is the most recently observed number of non-terminating pods. More info: ' +
    'https://kubernetes.io/docs/concepts/workloads/controllers/replicaset/#how-a-replicaset-works',
  ready: 'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.',
};

/** printers.go takes these from core/v1 ReplicationControllerSpec/ReplicationControllerStatus. */
export const REPLICATION_CONTROLLER = {
  desired:
    'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and ' +
    'unspecified. Defaults to 1. More info: ' +
    'https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
  current:
    'Replicas is the most recently observed number of replicas. More info: ' +
    'https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
  ready: 'The number of ready replicas for this replication controller.',
  selector:
    'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is ' +
    'defaulted to the labels present on the Pod template. Label keys and values that must match in order to be ' +
    'controlled by this replication controller, if empty defaulted to labels on Pod template. More info: ' +
    'https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
};

/**
 * printers.go (1.32) takes these from extensions/v1beta1 DaemonSetStatus/DaemonSetSpec, and the node
 * selector's from core/v1 PodSpec.
 */
export const DAEMON_SET = {
  desired:
    'The total number of nodes that should be running the daemon pod (including nodes correctly running the ' +
    'daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  current:
    'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More ' +
    'info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  ready:
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running ' +
    'and ready.',
  updated: 'The total number of nodes that are running updated daemon pod',
  available:
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running ' +
    'and available (ready for at least spec.minReadySeconds)',
  nodeSelector:
    "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's " +
    'labels for the pod to be scheduled on that node. More info: ' +
    'https://kubernetes.io/docs/concepts/configuration/assign-pod-node/',
  selector:
    'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, ' +
    'defaulted to labels on Pod template. More info: ' +
    'https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
};

export const SERVICE = {
  type:
    'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ' +
    'ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for ' +
    'load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by ' +
    'manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP ' +
    'is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" ' +
    'builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the ' +
    'clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the ' +
    'current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service ' +
    'to the specified externalName. Several other fields do not apply to ExternalName services. More info: ' +
    'https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
  clusterIP:
    'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified ' +
    'manually, is in-range (as per system configuration), and is not in use, it will be allocated to the ' +
    'service; otherwise creation of the service will fail. This field may not be changed through updates ' +
    'unless the type field is also being changed to ExternalName (which requires this field to be blank) or ' +
    'the type field is being changed from ExternalName (in which case this field may optionally be specified, ' +
    'as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to ' +
    '"None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are ' +
    'preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If ' +
    'this field is specified when creating a Service of type ExternalName, creation will fail. This field will ' +
    'be wiped when updating a Service to type ExternalName. More info: ' +
    'https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  externalIPs:
    'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this ' +
    'service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic ' +
    'arrives at a node with this IP.  A common example is external load-balancers that are not part of the ' +
    'Kubernetes system.',
  ports:
    'The list of ports that are exposed by this service. More info: ' +
    'https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  selector:
    'Route service traffic to pods with label keys and values matching this selector. If empty or not ' +
    'present, the service is assumed to have an external process managing its endpoints, which Kubernetes ' +
    'will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ' +
    'ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
  subsets:
    'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the ' +
    'IPs they share. A single address with multiple ports, some of which are ready and some of which are not ' +
    '(because they come from different containers) will result in the address being displayed in different ' +
    'subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the ' +
    'same subset. Sets of addresses and ports that comprise a service.',
};

const NODE_ADDRESSES =
  'List of addresses reachable to the node. Queried from cloud provider, if available. More info: ' +
  'https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as ' +
  'mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is ' +
  'merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. ' +
  'Consumers should assume that addresses can change during the lifetime of a Node. However, there are some ' +
  "exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status " +
  'or consumers of the downward API (status.hostIP).';

export const NODE = {
  status: 'The status of the node',
  roles: 'The roles of the node',
  kubeletVersion: 'Kubelet Version reported by the node.',
  addresses: NODE_ADDRESSES,
  osImage: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
  kernelVersion: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
  containerRuntimeVersion:
    'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
};

export const EVENT = {
  lastTimestamp: 'The time at which the most recent occurrence of this event was recorded.',
  type: 'Type of this event (Normal, Warning), new types could be added in the future',
  reason:
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  involvedObject: 'The object that this event is about.',
  fieldPath:
    'If referring to a piece of an object instead of an entire object, this string should contain a valid ' +
    'JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object ' +
    'reference is to a container within a pod, this would take on a value like: "spec.containers{name}" ' +
    '(where "name" refers to the name of the container that triggered the event) or if no container name is ' +
    'specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have ' +
    'some well-defined way of referencing a part of an object.',
  source: 'The component reporting this event. Should be a short machine understandable string.',
  message: 'A human-readable description of the status of this operation.',
  firstTimestamp: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
  count: 'The number of times this event has occurred.',
};

export const CONFIG = {
  namespaceStatus: 'The status of the namespace',
  secretType:
    'Used to facilitate programmatic handling of secret data. More info: ' +
    'https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
  secretData:
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The " +
    'serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly ' +
    'non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4',
  configMapData:
    "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. " +
    'Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not ' +
    'overlap with the keys in the BinaryData field, this is enforced during validation process.',
  serviceAccountSecrets:
    'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are ' +
    'allowed to use. Pods are only limited to this list if this service account has a ' +
    '"kubernetes.io/enforce-mountable-secrets" annotation set to "true". The ' +
    '"kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces ' +
    'to isolate access to mounted secrets. This field should not be used to find auto-generated service ' +
    'account token secrets for use outside of pods. Instead, tokens can be requested directly using the ' +
    'TokenRequest API, or service account token secrets can be manually created. More info: ' +
    'https://kubernetes.io/docs/concepts/configuration/secret',
  holderIdentity:
    'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is ' +
    'used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
};

export const HPA = {
  scaleTargetRef:
    'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should ' +
    'be collected, as well as to actually change the replica count.',
  metrics:
    'metrics contains the specifications for which to use to calculate the desired replica count (the maximum ' +
    'replica count across all metrics will be used).  The desired replica count is calculated multiplying the ' +
    'ratio between the target value and the current value by the current number of pods.  Ergo, metrics used ' +
    'must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for ' +
    'more information about how each type of metric must respond.',
  minReplicas:
    'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It ' +
    'defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and ' +
    'at least one Object or External metric is configured.  Scaling is active as long as at least one metric ' +
    'value is available.',
  maxReplicas:
    'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot ' +
    'be less that minReplicas.',
  currentReplicas:
    'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the ' +
    'autoscaler.',
};

export const ENDPOINT_SLICE = {
  addressType:
    'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must ' +
    'be the same type. This field is immutable after creation. The following address types are currently ' +
    'supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a ' +
    'Fully Qualified Domain Name.',
  ports:
    'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a ' +
    'unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined ' +
    'with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.',
  endpoints:
    'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.',
};

/**
 * printers.go describes the Role column with rbac/v1beta1's `roleRef` doc (1.32 wording, capitalised
 * and without v1's "This field is immutable."), the wide columns with literal strings.
 */
export const RBAC = {
  roleBindingRoleRef:
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the ' +
    'RoleRef cannot be resolved, the Authorizer must return an error.',
  clusterRoleBindingRoleRef:
    'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the ' +
    'Authorizer must return an error.',
};
