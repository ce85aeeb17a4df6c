import {
  DEFAULT_PROBER_CONFIG_YAML,
  DEFAULT_WEEDER_CONFIG_YAML,
  foldKey,
  loadProberConfig,
  loadWeederConfig,
  type ProberConfig,
  type WeederConfig,
} from './config.js';

const MINIMAL = `
kubeConfigSecretName: s
dependentResourceInfos:
  - ref: {apiVersion: apps/v1, kind: Deployment, name: kcm}
    scaleUp: {level: 0}
`;

function prober(text: string | undefined, env: Record<string, string> = {}): ProberConfig {
  const r = loadProberConfig(text, env);
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.config;
}

function proberProblems(text: string | undefined, env: Record<string, string> = {}): string[] {
  const r = loadProberConfig(text, env);
  return r.ok ? [] : r.problems;
}

function weeder(text: string | undefined, env: Record<string, string> = {}): WeederConfig {
  const r = loadWeederConfig(text, env);
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.config;
}

function weederProblems(text: string | undefined): string[] {
  const r = loadWeederConfig(text, {});
  return r.ok ? [] : r.problems;
}

describe('DEFAULT_PROBER_CONFIG_YAML', () => {
  it('loads with the example dependents and the upstream defaults', () => {
    const c = prober(DEFAULT_PROBER_CONFIG_YAML);
    expect(c).toMatchObject({
      kubeConfigSecretName: 'dwd-api-server-probe-secret',
      probeInterval: 10_000,
      initialDelay: 30_000,
      probeTimeout: 30_000,
      backoffJitterFactor: 0.2,
      kcmNodeMonitorGraceDuration: 40_000,
      nodeLeaseFailureFraction: 0.6,
      kubeApiQps: 5,
      kubeApiBurst: 10,
      concurrentReconciles: 1,
    });
    const summary = c.dependentResourceInfos.map((d) => [
      d.ref.name,
      d.optional,
      d.scaleUp?.level,
      d.scaleUp?.initialDelay,
      d.scaleDown?.level,
      d.scaleDown?.initialDelay,
    ]);
    expect(summary).toEqual([
      ['kube-controller-manager', false, 0, 0, 1, 0],
      ['machine-controller-manager', false, 1, 30_000, 0, 0],
      ['cluster-autoscaler', true, 2, 0, 0, 0],
    ]);
    expect(
      c.dependentResourceInfos.every((d) => d.scaleUp?.timeout === 30_000 && d.scaleDown?.timeout === 30_000),
    ).toBe(true);
  });
});

describe('loadProberConfig', () => {
  it('fills every default and leaves a missing scale direction out', () => {
    const c = prober(MINIMAL);
    expect(c).toEqual({
      kubeConfigSecretName: 's',
      probeInterval: 10_000,
      initialDelay: 30_000,
      probeTimeout: 30_000,
      backoffJitterFactor: 0.2,
      kcmNodeMonitorGraceDuration: 40_000,
      nodeLeaseFailureFraction: 0.6,
      dependentResourceInfos: [
        {
          ref: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'kcm' },
          optional: false,
          scaleUp: { level: 0, initialDelay: 0, timeout: 30_000 },
        },
      ],
      kubeApiQps: 5,
      kubeApiBurst: 10,
      concurrentReconciles: 1,
    });
    expect(c.dependentResourceInfos[0].scaleDown).toBeUndefined();
  });

  it('takes a resource with only scaleDown', () => {
    const c = prober(
      MINIMAL.replace('scaleUp: {level: 0}', 'scaleDown: {level: 3, timeout: 1m, initialDelay: 1.5s}'),
    );
    expect(c.dependentResourceInfos[0].scaleUp).toBeUndefined();
    expect(c.dependentResourceInfos[0].scaleDown).toEqual({ level: 3, initialDelay: 1500, timeout: 60_000 });
  });

  it('reads durations as Go strings', () => {
    const c = prober(
      `${MINIMAL}probeInterval: 1m30s\ninitialDelay: 0s\nprobeTimeout: 500ms\nkcmNodeMonitorGraceDuration: 2m\n`,
    );
    expect([c.probeInterval, c.initialDelay, c.probeTimeout, c.kcmNodeMonitorGraceDuration]).toEqual([
      90_000, 0, 500, 120_000,
    ]);
  });

  it('matches struct keys case-insensitively, as encoding/json does', () => {
    const c = prober(`
KUBECONFIGSECRETNAME: s
backOffJitterFactor: 0.5
ProbeInterval: 20s
dependentresourceinfos:
  - Ref: {APIVERSION: apps/v1, \u212Aind: Deployment, Name: kcm}
    OPTIONAL: true
    ScaleUP: {LEVEL: 1, InitialDelay: 2s}
`);
    expect(c.kubeConfigSecretName).toBe('s');
    expect(c.backoffJitterFactor).toBe(0.5);
    expect(c.probeInterval).toBe(20_000);
    expect(c.dependentResourceInfos[0]).toEqual({
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'kcm' },
      optional: true,
      scaleUp: { level: 1, initialDelay: 2000, timeout: 30_000 },
    });
  });

  it.each([
    ['ASCII case', 'ProbeInterval', 'probeinterval'],
    ['Kelvin sign', '\u212Aind', 'kind'],
    ['long s', 'kubeConfigSecretName'.replace('S', '\u017f'), 'kubeconfigsecretname'],
  ])('foldKey: %s', (_name, key, want) => {
    expect(foldKey(key)).toBe(want);
  });

  it('reads YAML 1.1 scalars and Go string targets as upstream does', () => {
    const c = prober(`
kubeConfigSecretName: 123
dependentResourceInfos:
  - ref: {apiVersion: apps/v1, kind: Deployment, name: kcm}
    optional: yes
    scaleUp: {level: 0}
`);
    expect(c.kubeConfigSecretName).toBe('123');
    expect(c.dependentResourceInfos[0].optional).toBe(true);
  });

  it('treats null as absent', () => {
    const c = prober(`${MINIMAL}probeInterval: ~\nnodeLeaseFailureFraction: null\n`);
    expect(c.probeInterval).toBe(10_000);
    expect(c.nodeLeaseFailureFraction).toBe(0.6);
  });

  it.each([
    ['no file', undefined, ['kubeConfigSecretName: required', 'dependentResourceInfos: required']],
    ['an empty file', '  \n', ['kubeConfigSecretName: required', 'dependentResourceInfos: required']],
    [
      'not YAML',
      'a: [1',
      [
        expect.stringMatching(/^config file: not YAML: /),
        'kubeConfigSecretName: required',
        'dependentResourceInfos: required',
      ],
    ],
    [
      'a list',
      '- 1',
      [
        'config file: the document must be a mapping',
        'kubeConfigSecretName: required',
        'dependentResourceInfos: required',
      ],
    ],
    [
      'no dependents',
      'kubeConfigSecretName: s\ndependentResourceInfos: []',
      ['dependentResourceInfos: must list at least one dependent resource'],
    ],
    [
      'an empty secret name',
      MINIMAL.replace('kubeConfigSecretName: s', 'kubeConfigSecretName: ""'),
      ['kubeConfigSecretName: must not be empty'],
    ],
    [
      'a duration as a number',
      `${MINIMAL}probeInterval: 10`,
      ['probeInterval: must be a Go duration string such as "30s"'],
    ],
    [
      'a duration without unit',
      `${MINIMAL}probeTimeout: "10"`,
      ['probeTimeout: invalid duration "10": missing unit after 10'],
    ],
    ['a zero probe interval', `${MINIMAL}probeInterval: 0s`, ['probeInterval: must be greater than 0']],
    ['a negative initial delay', `${MINIMAL}initialDelay: -1s`, ['initialDelay: must be at least 0']],
    [
      'a zero kcm grace duration',
      `${MINIMAL}kcmNodeMonitorGraceDuration: 0s`,
      ['kcmNodeMonitorGraceDuration: must be greater than 0'],
    ],
    [
      'a fraction above 1',
      `${MINIMAL}nodeLeaseFailureFraction: 1.5`,
      [expect.stringMatching(/^nodeLeaseFailureFraction: /)],
    ],
    [
      'a zero fraction',
      `${MINIMAL}nodeLeaseFailureFraction: 0`,
      [expect.stringMatching(/^nodeLeaseFailureFraction: /)],
    ],
    [
      'a negative jitter',
      `${MINIMAL}backoffJitterFactor: -0.1`,
      [expect.stringMatching(/^backoffJitterFactor: /)],
    ],
    ['an unknown key', `${MINIMAL}probeIntervall: 10s`, ['probeIntervall: unknown key']],
    [
      'a legacy key',
      `${MINIMAL}successThreshold: 1`,
      ["successThreshold: unknown key (no longer part of upstream's format)"],
    ],
    [
      'one field twice',
      `${MINIMAL}probeInterval: 1s\nPROBEINTERVAL: 2s`,
      ['PROBEINTERVAL: same field as probeInterval (keys match case-insensitively)'],
    ],
  ])('refuses %s', (_name, text, problems) => {
    expect(proberProblems(text)).toEqual(problems);
  });

  it('lists every problem of the dependents with its key path', () => {
    const problems = proberProblems(`
kubeConfigSecretName: s
dependentResourceInfos:
  - ref: {apiVersion: "apps/v1/x", kind: Deployment}
    optional: maybe
    scaleUp: {level: -1, timeout: 0s}
    scaleDown: {level: 1.5, replicas: 0}
  - scaleDown: {}
`);
    expect(problems).toEqual([
      'dependentResourceInfos.0.ref.apiVersion: must be "<group>/<version>" or "<version>"',
      'dependentResourceInfos.0.ref.name: required',
      'dependentResourceInfos.0.optional: must be true or false',
      expect.stringMatching(/^dependentResourceInfos\.0\.scaleUp\.level: /),
      'dependentResourceInfos.0.scaleUp.timeout: must be greater than 0',
      'dependentResourceInfos.0.scaleDown.level: must be a whole number',
      "dependentResourceInfos.0.scaleDown.replicas: unknown key (no longer part of upstream's format)",
      expect.stringMatching(/^dependentResourceInfos\.1\.ref: /),
      'dependentResourceInfos.1.scaleDown.level: required',
    ]);
  });
});

describe('environment overrides (the seed flags)', () => {
  it.each([
    [{ KUBE_API_QPS: '20.5' }, { kubeApiQps: 20.5, kubeApiBurst: 10, concurrentReconciles: 1 }],
    [
      { KUBE_API_BURST: '50', CONCURRENT_RECONCILES: '4' },
      { kubeApiQps: 5, kubeApiBurst: 50, concurrentReconciles: 4 },
    ],
    [
      { KUBE_API_QPS: '0', KUBE_API_BURST: '0', CONCURRENT_RECONCILES: '0' },
      { kubeApiQps: 5, kubeApiBurst: 10, concurrentReconciles: 1 },
    ],
    [{ KUBE_API_QPS: '' }, { kubeApiQps: 5, kubeApiBurst: 10, concurrentReconciles: 1 }],
  ])('%j', (env, want) => {
    expect(prober(MINIMAL, env)).toMatchObject(want);
    expect(weeder(DEFAULT_WEEDER_CONFIG_YAML, env)).toMatchObject(want);
  });

  it('overrides the file, whatever the key case there', () => {
    expect(prober(`${MINIMAL}KubeApiQps: 7\nkubeApiBurst: 8`, { KUBE_API_QPS: '9' })).toMatchObject({
      kubeApiQps: 9,
      kubeApiBurst: 8,
    });
  });

  it.each([
    [{ KUBE_API_QPS: 'fast' }, /^kubeApiQps: .* \(from KUBE_API_QPS\)$/],
    [{ KUBE_API_BURST: '-1' }, /^kubeApiBurst: .* \(from KUBE_API_BURST\)$/],
    [{ CONCURRENT_RECONCILES: '1.5' }, /^concurrentReconciles: .* \(from CONCURRENT_RECONCILES\)$/],
  ])('refuses %j', (env, line) => {
    expect(proberProblems(MINIMAL, env)).toEqual([expect.stringMatching(line)]);
  });
});

describe('loadWeederConfig', () => {
  it('loads DEFAULT_WEEDER_CONFIG_YAML with the example selectors', () => {
    const c = weeder(DEFAULT_WEEDER_CONFIG_YAML);
    expect(c.watchDuration).toBe(300_000);
    expect(Object.keys(c.servicesAndDependantSelectors)).toEqual(['etcd-main-client', 'kube-apiserver']);
    expect(c.servicesAndDependantSelectors['kube-apiserver'].podSelectors).toEqual([
      {
        matchExpressions: [
          { key: 'gardener.cloud/role', operator: 'In', values: ['controlplane'] },
          { key: 'role', operator: 'NotIn', values: ['main', 'apiserver'] },
        ],
      },
    ]);
  });

  it('defaults watchDuration, folds struct keys and keeps service names and labels exact', () => {
    const c = weeder(`
ServicesAndDependantSelectors:
  Kube-APIServer:
    PodSelectors:
      - MatchLabels: {Role: 1}
      - {}
`);
    expect(c.watchDuration).toBe(300_000);
    expect(c.servicesAndDependantSelectors).toEqual({
      'Kube-APIServer': { podSelectors: [{ matchLabels: { Role: '1' } }, {}] },
    });
  });

  it.each([
    ['no file', undefined, ['servicesAndDependantSelectors: required']],
    [
      'no services',
      'servicesAndDependantSelectors: {}',
      ['servicesAndDependantSelectors: must name at least one service'],
    ],
    [
      'no pod selectors',
      'servicesAndDependantSelectors: {a: {}}',
      ['servicesAndDependantSelectors.a.podSelectors: required'],
    ],
    [
      'an empty selector list',
      'servicesAndDependantSelectors: {a: {podSelectors: []}}',
      ['servicesAndDependantSelectors.a.podSelectors: must list at least one pod selector'],
    ],
    [
      'a null selector',
      'servicesAndDependantSelectors: {a: {podSelectors: [~]}}',
      ['servicesAndDependantSelectors.a.podSelectors.0: must be a label selector mapping'],
    ],
    [
      'a zero watch duration',
      'watchDuration: 0s\nservicesAndDependantSelectors: {a: {podSelectors: [{}]}}',
      ['watchDuration: must be greater than 0'],
    ],
  ])('refuses %s', (_name, text, problems) => {
    expect(weederProblems(text)).toEqual(problems);
  });

  it('checks selectors as LabelSelectorAsSelector does, every problem with its path', () => {
    const problems = weederProblems(`
servicesAndDependantSelectors:
  a:
    podSelectors:
      - matchLabels: {"bad key": x, ok: "bad value!"}
        matchExpressions:
          - {key: role, operator: In}
          - {key: role, operator: Exists, values: [x]}
          - {key: role, operator: Equals, values: [x]}
          - {key: "-role", operator: DoesNotExist}
`);
    const p = 'servicesAndDependantSelectors.a.podSelectors.0';
    expect(problems).toEqual([
      `${p}.matchLabels.ok: must be a label value`,
      `${p}.matchLabels.bad key: must be a qualified label key`,
      `${p}.matchExpressions.0.values: must not be empty for In`,
      `${p}.matchExpressions.1.values: must be empty for Exists`,
      `${p}.matchExpressions.2.operator: must be one of In, NotIn, Exists, DoesNotExist`,
      `${p}.matchExpressions.3.key: must be a qualified label key such as "gardener.cloud/role"`,
    ]);
  });
});
