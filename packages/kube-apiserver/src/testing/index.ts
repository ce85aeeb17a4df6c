/**
 * `@landscape/kube-apiserver/testing`: the test-only hooks of a cluster, for tests, the drill and
 * the benchmarks. Fault injection (`cluster.faults`: answers as an overloaded or racing
 * kube-apiserver would give them) and the HTTP traffic counter (`countTraffic: true`). Neither
 * has an upstream counterpart; both are off by default.
 */
export { FaultInjector, FAULT_KINDS, type FaultKind, type FaultSpec } from './faults.js';
export {
  TrafficCounter,
  trafficDelta,
  trafficTotal,
  type TrafficCount,
  type TrafficSnapshot,
} from './traffic.js';
