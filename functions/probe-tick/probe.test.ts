import { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient, KubeHttpRequest, KubeHttpResponse } from '../../shared/kube/index.js';
import {
  DEFAULT_PROBER_CONFIG_YAML,
  loadProberConfig,
  type ProberConfig,
} from '../../shared/watchdog/config.js';
import { probeShoot, type ProbeDeps } from './probe.js';
import type { SeedView } from './seedview.js';
import type { ShootProbe } from './shoots.js';

function config(probeTimeout: number): ProberConfig {
  const r = loadProberConfig(DEFAULT_PROBER_CONFIG_YAML, {});
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return { ...r.config, probeTimeout };
}

const probe = (probeTimeout: number): ShootProbe => ({
  probe: true,
  namespace: 'shoot--p--s',
  config: config(probeTimeout),
  nodeMonitorGraceSource: 'config',
  workerNodeConditions: {},
});

const NODES = '/api/v1/nodes';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

/** A shoot API server that answers `/version` and empty lists; `hang` paths answer only their abort. */
function shootServer(
  hang: readonly string[] = [],
  log: string[] = [],
): { client: KubeClient; seen: KubeHttpRequest[] } {
  const seen: KubeHttpRequest[] = [];
  const answer = (r: KubeHttpRequest): Promise<KubeHttpResponse> => {
    if (hang.includes(r.path)) {
      return new Promise((_, reject) =>
        r.signal?.addEventListener('abort', () => reject(new Error(`${r.path}: aborted`))),
      );
    }
    const body = r.path === '/version' ? '{"major":"1","minor":"33"}' : '{"items":[]}';
    return Promise.resolve({ status: 200, headers: {}, body });
  };
  const request = (r: KubeHttpRequest): Promise<KubeHttpResponse> => {
    seen.push(r);
    log.push(`sent ${r.path}`);
    const settled = (): void => void log.push(`settled ${r.path}`);
    return answer(r).finally(settled);
  };
  return { client: { request } as unknown as KubeClient, seen };
}

function deps(shoot: KubeClient, closed: string[] = []): ProbeDeps {
  const view = {
    kubeConfig: () => Promise.resolve(new KubeConfig()),
    machines: () => Promise.resolve([]),
  } as unknown as SeedView;
  return {
    seed: {} as KubeClient,
    shootClient: () => ({ client: shoot, close: () => void closed.push('closed') }),
    now: () => Date.now(),
    view,
  };
}

describe('probeShoot', () => {
  it('gives every shoot request probeTimeout as its deadline, as upstream rest.Config.Timeout', async () => {
    const shoot = shootServer();
    const result = await probeShoot(deps(shoot.client), probe(7_000));
    expect(result.kind).toBe('lease');
    expect(shoot.seen.map((r) => r.path).sort()).toEqual(['/version', LEASES, NODES].sort());
    for (const r of shoot.seen) {
      expect(r.method).toBe('GET');
      expect(r.timeoutMs).toBe(7_000);
      expect(r.signal).toBeInstanceOf(AbortSignal);
    }
  });

  it('fails the lease probe when a list does not answer within probeTimeout', async () => {
    const shoot = shootServer([NODES]);
    const result = await probeShoot(deps(shoot.client), probe(20));
    expect(result.kind).toBe('failed');
    expect(result.kind === 'failed' && result.message).toContain('ERR_PROBE_NODE_LEASE');
    expect(result.kind === 'failed' && result.message).toContain(`${NODES}: aborted`);
  });

  it('fails the API server probe when /version does not answer within probeTimeout, no list follows', async () => {
    const shoot = shootServer(['/version']);
    const result = await probeShoot(deps(shoot.client), probe(20));
    expect(result.kind === 'failed' && result.message).toContain('ERR_PROBE_API_SERVER');
    expect(shoot.seen.map((r) => r.path)).toEqual(['/version']);
  });

  it("closes the probe's connection when the probe ends, after its last request settled", async () => {
    for (const hang of [[], [NODES], ['/version']]) {
      const log: string[] = [];
      const result = await probeShoot(deps(shootServer(hang, log).client, log), probe(20));
      expect(result.kind).toBe(hang.length === 0 ? 'lease' : 'failed');
      expect(log.filter((l) => l === 'closed')).toHaveLength(1);
      expect(log[log.length - 1]).toBe('closed');
      expect(log.filter((l) => l.startsWith('settled'))).toHaveLength(
        log.filter((l) => l.startsWith('sent')).length,
      );
    }
  });

  it('sends the Lease list only after the Node list answered, as upstream', async () => {
    const log: string[] = [];
    await probeShoot(deps(shootServer([], log).client, log), probe(20));
    expect(log).toEqual([
      'sent /version',
      'settled /version',
      `sent ${NODES}`,
      `settled ${NODES}`,
      `sent ${LEASES}`,
      `settled ${LEASES}`,
      'closed',
    ]);
  });
});
