/**
 * Test support: the embedded API server in-process, with client-node clients for its clusters —
 * the package's own test support (packages/kube-apiserver/test/support/cluster.ts), which serves
 * the product CRDs of shared/api/crds as this folder's copy did.
 */
export * from '../../packages/kube-apiserver/test/support/cluster.js';
