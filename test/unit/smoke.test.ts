import * as k8s from '@kubernetes/client-node';
it('imports client-node', () => { expect(typeof k8s.KubeConfig).toBe('function'); });
