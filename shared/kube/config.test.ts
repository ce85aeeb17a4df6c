import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import {
  kubeConfigFromEnv,
  kubeConfigFromFile,
  kubeConfigFromYaml,
  kubeConfigInCluster,
  loadKubeConfig,
} from './config.js';
import { KubeConfigError } from './errors.js';

function doc(name: string, server: string, current: string | null = name): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server } }],
    users: [{ name, user: { token: `t-${name}` } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    ...(current !== null ? { 'current-context': current } : {}),
  });
}

let dir: string;
let fileA: string;
let fileB: string;
let fileNoCurrent: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'kube-config-test-'));
  fileA = path.join(dir, 'a.yaml');
  fileB = path.join(dir, 'b.yaml');
  fileNoCurrent = path.join(dir, 'none.yaml');
  writeFileSync(fileA, doc('a', 'https://a.example.com'));
  writeFileSync(fileB, doc('b', 'https://b.example.com'));
  writeFileSync(fileNoCurrent, doc('n', 'https://n.example.com', null));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('trusted kubeconfig sources', () => {
  it('loads a file', () => {
    expect(kubeConfigFromFile(fileA).getCurrentCluster()?.server).toBe('https://a.example.com');
  });

  it('selects another context when asked, and refuses an unknown one', () => {
    const kc = kubeConfigFromEnv([fileA, fileB].join(path.delimiter), { context: 'b' });
    expect(kc.getCurrentCluster()?.name).toBe('b');
    expect(() => kubeConfigFromFile(fileA, { context: 'zzz' })).toThrow(KubeConfigError);
  });

  it('merges KUBECONFIG lists as kubectl does: the first current-context wins', () => {
    const kc = kubeConfigFromEnv([fileNoCurrent, fileA, fileB].join(path.delimiter));
    expect(kc.getCurrentContext()).toBe('a');
    expect(kc.getClusters().map((c) => c.name)).toEqual(['n', 'a', 'b']);
  });

  it('keeps the first definition of a duplicate name', () => {
    const kc = kubeConfigFromEnv([fileA, fileA].join(path.delimiter));
    expect(kc.getClusters()).toHaveLength(1);
  });

  it('throws a typed error for a missing file, empty KUBECONFIG, bad YAML or no cluster', () => {
    expect(() => kubeConfigFromFile(path.join(dir, 'missing.yaml'))).toThrow(KubeConfigError);
    expect(() => kubeConfigFromEnv('')).toThrow(KubeConfigError);
    expect(() => kubeConfigFromYaml('clusters: [{name: x}]')).toThrow(KubeConfigError);
    expect(() => kubeConfigFromYaml('{}')).toThrow(/no current cluster/);
  });

  it('sets skipTLSVerify for plain-HTTP servers only', () => {
    expect(kubeConfigFromYaml(doc('h', 'http://127.0.0.1:8080')).getCurrentCluster()?.skipTLSVerify).toBe(
      true,
    );
    expect(kubeConfigFromYaml(doc('s', 'https://x')).getCurrentCluster()?.skipTLSVerify).toBe(false);
  });

  it('builds in-cluster config from host and port given by the caller', () => {
    const kc = kubeConfigInCluster({ host: '10.0.0.1', port: 443, pathPrefix: dir });
    expect(kc.getCurrentCluster()?.server).toBe('https://10.0.0.1:443');
    expect(kc.getCurrentCluster()?.caFile).toBe(`${dir}/var/run/secrets/kubernetes.io/serviceaccount/ca.crt`);
    expect(kc.getCurrentUser()?.authProvider).toMatchObject({ name: 'tokenFile' });
    expect(kubeConfigInCluster({ host: 'fd00::1', port: '6443' }).getCurrentCluster()?.server).toBe(
      'https://[fd00::1]:6443',
    );
  });

  it('loadKubeConfig dispatches on the source kind', () => {
    expect(loadKubeConfig({ kind: 'file', path: fileB }).getCurrentContext()).toBe('b');
    expect(loadKubeConfig({ kind: 'env', value: fileA }).getCurrentContext()).toBe('a');
    expect(loadKubeConfig({ kind: 'yaml', yaml: doc('y', 'https://y') }).getCurrentContext()).toBe('y');
    expect(loadKubeConfig({ kind: 'inCluster', host: 'h', port: 80 }).getCurrentCluster()?.server).toBe(
      'http://h:80',
    );
  });
});
