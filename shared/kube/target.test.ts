import { jest } from '@jest/globals';
import { stringify } from 'yaml';
import type { Target } from '../api/landscaper.js';
import { KUBERNETES_CLUSTER_TARGET_TYPE } from '../api/landscaper.js';
import { TargetKubeconfigError } from './errors.js';
import type { TargetProblemKind } from './errors.js';
import type { ReadSecret, SecretPayload } from './target.js';
import {
  isTargetSecretMissing,
  kubeConfigForTarget,
  kubeConfigFromTargetKubeconfig,
  targetKubeconfigText,
  validateTargetKubeconfig,
} from './target.js';

const TOKEN = 'sup3r-s3cret-t0ken';

function kubeconfig(patch: { cluster?: object; user?: object; top?: object } = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'c',
        cluster: {
          server: 'https://api.example.com',
          'certificate-authority-data': 'Q0E=',
          ...patch.cluster,
        },
      },
    ],
    users: [{ name: 'u', user: { token: TOKEN, ...patch.user } }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
    'current-context': 'ctx',
    ...patch.top,
  };
}

const yamlOf = (doc: unknown): string => stringify(doc);

function kindsOf(fn: () => unknown): TargetProblemKind[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof TargetKubeconfigError) return err.problems.map((p) => p.kind);
    throw err;
  }
  return [];
}

describe('validateTargetKubeconfig', () => {
  it('accepts token, client certificate data, basic auth and skip-verify', () => {
    expect(validateTargetKubeconfig(kubeconfig())).toEqual([]);
    const certs = kubeconfig({ user: { 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5' } });
    expect(validateTargetKubeconfig(certs)).toEqual([]);
    const basic = kubeconfig({
      user: { username: 'a', password: 'b' },
      cluster: { 'insecure-skip-tls-verify': true },
    });
    expect(validateTargetKubeconfig(basic)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, TargetProblemKind, string]>([
    ['exec', kubeconfig({ user: { exec: { command: 'sh' } } }), 'ForbiddenExec', 'users[0].user.exec'],
    [
      'auth-provider',
      kubeconfig({ user: { 'auth-provider': { name: 'gcp' } } }),
      'ForbiddenAuthProvider',
      'users[0].user.auth-provider',
    ],
    [
      'token-file',
      kubeconfig({ user: { 'token-file': '/etc/passwd' } }),
      'ForbiddenFileReference',
      'users[0].user.token-file',
    ],
    [
      'tokenFile',
      kubeconfig({ user: { tokenFile: '/x' } }),
      'ForbiddenFileReference',
      'users[0].user.tokenFile',
    ],
    [
      'client-certificate',
      kubeconfig({ user: { 'client-certificate': '/c' } }),
      'ForbiddenFileReference',
      'users[0].user.client-certificate',
    ],
    [
      'client-key',
      kubeconfig({ user: { 'client-key': '/k' } }),
      'ForbiddenFileReference',
      'users[0].user.client-key',
    ],
    [
      'certificate-authority',
      kubeconfig({ cluster: { 'certificate-authority': '/ca' } }),
      'ForbiddenFileReference',
      'clusters[0].cluster.certificate-authority',
    ],
    ['as', kubeconfig({ user: { as: 'admin' } }), 'ForbiddenImpersonation', 'users[0].user.as'],
    [
      'as-groups',
      kubeconfig({ user: { 'as-groups': ['system:masters'] } }),
      'ForbiddenImpersonation',
      'users[0].user.as-groups',
    ],
    ['as-uid', kubeconfig({ user: { 'as-uid': '0' } }), 'ForbiddenImpersonation', 'users[0].user.as-uid'],
    [
      'as-user-extra',
      kubeconfig({ user: { 'as-user-extra': { a: ['b'] } } }),
      'ForbiddenImpersonation',
      'users[0].user.as-user-extra',
    ],
    ['unknown user field', kubeconfig({ user: { foo: 1 } }), 'InvalidKubeconfig', 'users[0].user.foo'],
    ['unknown top-level field', kubeconfig({ top: { foo: 1 } }), 'InvalidKubeconfig', 'foo'],
    [
      'missing server',
      kubeconfig({ cluster: { server: undefined } }),
      'InvalidKubeconfig',
      'clusters[0].cluster.server',
    ],
    [
      'non-http server',
      kubeconfig({ cluster: { server: 'file:///etc/passwd' } }),
      'InvalidKubeconfig',
      'clusters[0].cluster.server',
    ],
    [
      'unknown current-context',
      kubeconfig({ top: { 'current-context': 'nope' } }),
      'InvalidKubeconfig',
      'current-context',
    ],
    [
      'no current-context',
      kubeconfig({ top: { 'current-context': undefined } }),
      'InvalidKubeconfig',
      'current-context',
    ],
  ])('refuses %s', (_name, doc, kind, path) => {
    expect(validateTargetKubeconfig(JSON.parse(JSON.stringify(doc)))).toContainEqual(
      expect.objectContaining({ kind, path }),
    );
  });

  it('checks every user, not only the current one, and lists every problem', () => {
    const doc = kubeconfig({ user: { exec: { command: 'sh' } } });
    (doc.users as unknown[]).push({
      name: 'other',
      user: { 'token-file': '/var/run/secrets/kubernetes.io/serviceaccount/token', as: 'x' },
    });
    expect(validateTargetKubeconfig(doc).map((p) => p.kind)).toEqual([
      'ForbiddenExec',
      'ForbiddenFileReference',
      'ForbiddenImpersonation',
    ]);
  });

  it('refuses what is not a mapping', () => {
    expect(validateTargetKubeconfig('x')).toEqual([
      { kind: 'InvalidKubeconfig', path: '', message: 'must be a YAML mapping' },
    ]);
    expect(validateTargetKubeconfig({ ...kubeconfig(), users: 'x' }).map((p) => p.path)).toContain('users');
  });
});

describe('kubeConfigFromTargetKubeconfig', () => {
  it('loads a valid kubeconfig', () => {
    const kc = kubeConfigFromTargetKubeconfig(yamlOf(kubeconfig()));
    expect(kc.getCurrentCluster()?.server).toBe('https://api.example.com');
    expect(kc.getCurrentUser()?.token).toBe(TOKEN);
  });

  it('lets plain-HTTP servers through client-node 1.4 (skipTLSVerify set)', () => {
    const kc = kubeConfigFromTargetKubeconfig(
      yamlOf(kubeconfig({ cluster: { server: 'http://127.0.0.1:8080' } })),
    );
    expect(kc.getCurrentCluster()?.skipTLSVerify).toBe(true);
  });

  it('refuses token-file before client-node could read it', () => {
    const text = yamlOf(kubeconfig({ user: { 'token-file': '/definitely/not/there' } }));
    // client-node would throw ENOENT while parsing; the refusal comes first
    expect(kindsOf(() => kubeConfigFromTargetKubeconfig(text))).toEqual(['ForbiddenFileReference']);
  });

  it('does not honour YAML merge keys (no parser differential with client-node)', () => {
    const text = [
      'evil: &evil {exec: {command: sh}}',
      'clusters: [{name: c, cluster: {server: "https://x"}}]',
      'users: [{name: u, user: {<<: *evil, token: t}}]',
      'contexts: [{name: ctx, context: {cluster: c, user: u}}]',
      'current-context: ctx',
    ].join('\n');
    expect(kindsOf(() => kubeConfigFromTargetKubeconfig(text))).toEqual([
      'InvalidKubeconfig',
      'InvalidKubeconfig',
    ]);
  });

  it('reports bad YAML without echoing the source', () => {
    const text = `users: [{name: u, user: {token: ${TOKEN}}]\n  : :`;
    let message = '';
    try {
      kubeConfigFromTargetKubeconfig(text, 'ns/t');
    } catch (err) {
      expect(err).toBeInstanceOf(TargetKubeconfigError);
      expect((err as TargetKubeconfigError).code).toBe('ERR_CONFIGURATION_PROBLEM');
      message = (err as Error).message;
    }
    expect(message).toMatch(/^target ns\/t: kubeconfig: invalid YAML/);
    expect(message).not.toContain(TOKEN);
  });

  it('never puts the kubeconfig into the error', () => {
    const text = yamlOf(kubeconfig({ user: { exec: { command: 'sh' } } }));
    try {
      kubeConfigFromTargetKubeconfig(text);
      throw new Error('not refused');
    } catch (err) {
      expect(JSON.stringify({ ...(err as object), message: (err as Error).message })).not.toContain(TOKEN);
    }
  });
});

describe('Target content', () => {
  const text = yamlOf(kubeconfig());
  const b64 = (s: string): string => Buffer.from(s).toString('base64');

  function target(spec: Partial<Target['spec']>, namespace = 'ns'): Target {
    return { metadata: { name: 't', namespace }, spec: { type: KUBERNETES_CLUSTER_TARGET_TYPE, ...spec } };
  }

  function reader(secrets: Record<string, SecretPayload>): jest.Mock<ReadSecret> {
    return jest.fn<ReadSecret>(({ namespace, name }) => Promise.resolve(secrets[`${namespace}/${name}`]));
  }

  const none = reader({});

  it('reads the inline config', async () => {
    expect(await targetKubeconfigText(target({ config: { kubeconfig: text } }), { readSecret: none })).toBe(
      text,
    );
    expect(none).not.toHaveBeenCalled();
  });

  it('reads the whole Secret data without a key', async () => {
    const read = reader({ 'ns/s': { data: { kubeconfig: b64(text) } } });
    expect(await targetKubeconfigText(target({ secretRef: { name: 's' } }), { readSecret: read })).toBe(text);
    expect(read).toHaveBeenCalledWith({ namespace: 'ns', name: 's' });
  });

  it('parses the value under the key as the config', async () => {
    const read = reader({ 'ns/s': { data: { cluster1: b64(stringify({ kubeconfig: text })) } } });
    const kc = await kubeConfigForTarget(target({ secretRef: { name: 's', key: 'cluster1' } }), {
      readSecret: read,
    });
    expect(kc.getCurrentUser()?.token).toBe(TOKEN);
  });

  it('accepts stringData from a fake reader', async () => {
    const read = reader({ 'ns/s': { stringData: { kubeconfig: text } } });
    expect(await targetKubeconfigText(target({ secretRef: { name: 's' } }), { readSecret: read })).toBe(text);
  });

  it.each<[string, Partial<Target['spec']>, TargetProblemKind]>([
    [
      'another type',
      { type: 'landscaper.gardener.cloud/other', config: { kubeconfig: text } },
      'UnsupportedTargetType',
    ],
    ['neither config nor secretRef', {}, 'InvalidTargetSpec'],
    [
      'both config and secretRef',
      { config: { kubeconfig: text }, secretRef: { name: 's' } },
      'InvalidTargetSpec',
    ],
    ['config without kubeconfig', { config: { server: 'x' } }, 'MissingKubeconfig'],
    ['kubeconfig not a string', { config: { kubeconfig: { secretRef: {} } } }, 'MissingKubeconfig'],
    ['missing Secret', { secretRef: { name: 'absent' } }, 'SecretNotFound'],
    ['missing key', { secretRef: { name: 's', key: 'nope' } }, 'SecretKeyNotFound'],
    [
      'a bare kubeconfig under the key',
      { secretRef: { name: 'bare', key: 'kubeconfig' } },
      'MissingKubeconfig',
    ],
    ['Secret without kubeconfig', { secretRef: { name: 's' } }, 'MissingKubeconfig'],
    [
      'Secret in another namespace',
      { secretRef: { name: 's', namespace: 'kube-system' } },
      'CrossNamespaceSecretRef',
    ],
    ['exec in the Secret kubeconfig', { secretRef: { name: 'evil' } }, 'ForbiddenExec'],
  ])('refuses %s', async (_name, spec, kind) => {
    const read = reader({
      'ns/s': { data: { other: b64('x') } },
      'ns/evil': { stringData: { kubeconfig: yamlOf(kubeconfig({ user: { exec: { command: 'sh' } } })) } },
      'ns/bare': { stringData: { kubeconfig: text } },
      'kube-system/s': { data: { kubeconfig: b64(text) } },
    });
    const err: unknown = await kubeConfigForTarget(target(spec), { readSecret: read }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TargetKubeconfigError);
    expect((err as TargetKubeconfigError).problems.map((p) => p.kind)).toEqual([kind]);
    expect((err as TargetKubeconfigError).target).toBe('ns/t');
  });

  it.each<[string, Partial<Target['spec']>, string, boolean]>([
    ['missing Secret', { secretRef: { name: 'absent' } }, 'spec.secretRef: secret ns/absent not found', true],
    [
      'missing key (upstream wording)',
      { secretRef: { name: 's', key: 'nope' } },
      'spec.secretRef.key: key nope in secret ns/s does not exist',
      true,
    ],
    [
      'a bare kubeconfig under the key',
      { secretRef: { name: 'bare', key: 'kubeconfig' } },
      'spec.secretRef.key: the value of key kubeconfig in secret ns/bare is a kubeconfig itself',
      false,
    ],
    [
      'Secret without kubeconfig',
      { secretRef: { name: 's' } },
      'the Target content has no kubeconfig string',
      false,
    ],
    ['exec in the Secret kubeconfig', { secretRef: { name: 'evil' } }, 'exec is not allowed', false],
  ])(
    '%s: the message names the Secret; only absence may heal (%s)',
    async (_name, spec, message, missing) => {
      const read = reader({
        'ns/s': { data: { other: b64('x') } },
        'ns/bare': { stringData: { kubeconfig: text } },
        'ns/evil': { stringData: { kubeconfig: yamlOf(kubeconfig({ user: { exec: { command: 'sh' } } })) } },
      });
      const err: unknown = await kubeConfigForTarget(target(spec), { readSecret: read }).catch(
        (e: unknown) => e,
      );
      expect((err as Error).message).toContain(message);
      expect((err as Error).message).not.toContain(TOKEN);
      expect(isTargetSecretMissing(err)).toBe(missing);
    },
  );

  it('isTargetSecretMissing: only a TargetKubeconfigError whose every problem is an absence', () => {
    const gone = { kind: 'SecretNotFound' as const, path: 'spec.secretRef', message: 'x' };
    const bad = { kind: 'InvalidKubeconfig' as const, path: 'kubeconfig', message: 'y' };
    expect(isTargetSecretMissing(new TargetKubeconfigError('ns/t', [gone]))).toBe(true);
    expect(isTargetSecretMissing(new TargetKubeconfigError('ns/t', [gone, bad]))).toBe(false);
    expect(isTargetSecretMissing(new TargetKubeconfigError('ns/t', []))).toBe(false);
    expect(isTargetSecretMissing(new Error('secret ns/absent not found'))).toBe(false);
  });

  it('lets reader failures through (transient)', async () => {
    const boom = new Error('connection refused');
    const read: ReadSecret = () => Promise.reject(boom);
    await expect(
      kubeConfigForTarget(target({ secretRef: { name: 's' } }), { readSecret: read }),
    ).rejects.toBe(boom);
  });
});
