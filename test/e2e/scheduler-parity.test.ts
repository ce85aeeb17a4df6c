/**
 * The scheduler's upstream rules of issue 15 item 4 under `npm start`, driven with kubectl:
 *
 * - A Seed with gardener's `spec.dns` (provider, internal, defaults) applies and is kept whole.
 * - A Shoot whose IPv6 pods network overlaps the only seed's stays unscheduled, with upstream's
 *   network-disjointedness message (gardener pkg/scheduler/controller/shoot/reconciler.go
 *   networksAreDisjointed) in status.lastOperation and in a SchedulingFailed Event.
 * - A Shoot with a Gardener-managed domain `<shoot>.<project>.<default domain>` is bound to the seed
 *   with that default domain (filterSeedsMatchingDomain; the Project names the shoot's namespace).
 * - A Shoot of a NamespacedCloudProfile is bound to a seed its parent's seed selector admits.
 *
 * The runtime and seedmanagement families of knative/ only; the fixture controller plays gardenlet
 * (seeds become ready after 300 ms); `--resync-interval 24h` so only events drive the scheduler.
 */
import { stringify } from 'yaml';
import { startLandscape, startTimeout, stopTimeout, until, type Landscape } from './support.js';

const NS = 'garden-parity';
const V1B1 = 'core.gardener.cloud/v1beta1';

interface Shoot {
  spec: { seedName?: string };
  status?: { lastOperation?: { type?: string; state?: string; description?: string } };
}

interface KubeEvent {
  involvedObject: { kind?: string; name?: string };
  reason: string;
  message: string;
}

let l: Landscape;

const context = (): string => `--- landscape:\n${l.output().slice(-3000)}`;

async function apply(docs: unknown[]): Promise<void> {
  await l.kubectlOk(['apply', '-f', '-'], { input: docs.map((d) => stringify(d)).join('---\n') });
}

const getShoot = async (name: string): Promise<Shoot> =>
  (await l.getJson(['shoot', name, '-n', NS])) as Shoot;

const secretRef = (name: string): Record<string, string> => ({
  apiVersion: 'v1',
  kind: 'Secret',
  name,
  namespace: 'garden',
});

const seed = (
  name: string,
  type: string,
  spec: Record<string, unknown> = {},
  labels?: Record<string, string>,
): unknown => ({
  apiVersion: V1B1,
  kind: 'Seed',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: {
    provider: { type, region: type },
    settings: { scheduling: { visible: true } },
    networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    ...spec,
  },
});

const shoot = (name: string, type: string, spec: Record<string, unknown> = {}): unknown => ({
  apiVersion: V1B1,
  kind: 'Shoot',
  metadata: { name, namespace: NS },
  spec: {
    cloudProfileName: 'parity',
    region: type,
    provider: { type, workers: [{ name: 'pool', machine: { type: 'm' } }] },
    ...spec,
  },
});

const boundSeed = (name: string): Promise<string> =>
  until(`shoot ${name} bound`, async () => (await getShoot(name)).spec.seedName, {
    timeoutMs: 60_000,
    context,
  });

const DNS = {
  provider: { type: 'local', credentialsRef: secretRef('dns') },
  internal: { type: 'local', domain: 'internal.example.com', credentialsRef: secretRef('internal') },
  defaults: [{ type: 'local', domain: 'example.com', credentialsRef: secretRef('default') }],
};

beforeAll(async () => {
  l = await startLandscape(
    [
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      'knative/seedmanagement',
      '--fixture-seed-delay',
      '300ms',
      '--fixture-shoot-delay',
      '300ms',
      '--resync-interval',
      '24h',
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    { functions: true },
  );
  await apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    { apiVersion: V1B1, kind: 'Project', metadata: { name: 'parity' }, spec: { namespace: NS } },
    { apiVersion: V1B1, kind: 'CloudProfile', metadata: { name: 'parity' }, spec: { type: 'netv6' } },
    {
      apiVersion: V1B1,
      kind: 'CloudProfile',
      metadata: { name: 'ncp-parent' },
      spec: { type: 'ncp', seedSelector: { matchLabels: { tier: 'gold' } } },
    },
    {
      apiVersion: V1B1,
      kind: 'NamespacedCloudProfile',
      metadata: { name: 'ncp-dev', namespace: NS },
      spec: {
        parent: { kind: 'CloudProfile', name: 'ncp-parent' },
        machineTypes: [{ name: 'big', cpu: '64' }],
      },
    },
    seed('netv6-seed', 'netv6', {
      networks: { pods: '2001:db8:1::/48', services: '2001:db8:2::/108', ipFamilies: ['IPv6'] },
    }),
    seed('dom-other', 'dom', { dns: { defaults: [{ ...DNS.defaults[0], domain: 'other.com' }] } }),
    seed('dom-example', 'dom', { dns: DNS }),
    seed('ncp-plain', 'ncp'),
    seed('ncp-gold', 'ncp', {}, { tier: 'gold' }),
  ]);
}, startTimeout() + 30_000);

afterAll(async () => {
  const stopped = await l?.stop();
  expect(stopped?.code).toBe(0);
}, stopTimeout());

it('a Seed with spec.dns.defaults applies and keeps provider, internal and defaults', async () => {
  const got = (await l.getJson(['seed', 'dom-example'])) as { spec: { dns: unknown } };
  expect(got.spec.dns).toEqual(DNS);
}, 30_000);

it("a shoot whose IPv6 pods overlap the only seed's stays unscheduled with upstream's message", async () => {
  await apply([
    shoot('overlap', 'netv6', { networking: { pods: '2001:db8:1:4::/64', ipFamilies: ['IPv6'] } }),
  ]);
  const message =
    'Failed to schedule Shoot: 0/1 seed cluster candidate(s) are eligible for scheduling: {netv6-seed => invalid networks: ' +
    '[Invalid value: "2001:db8:1:4::/64": shoot pod network intersects with seed pod network]}';
  const pending = await until(
    'the overlapping shoot reported as Create Pending',
    async () => {
      const s = await getShoot('overlap');
      return s.status?.lastOperation?.state === 'Pending' ? s : undefined;
    },
    { timeoutMs: 60_000, context },
  );
  expect(pending.status?.lastOperation).toMatchObject({
    type: 'Create',
    state: 'Pending',
    description: message,
  });
  expect(pending.spec.seedName).toBeUndefined();
  const events = ((await l.getJson(['events', '-n', NS])) as { items: KubeEvent[] }).items;
  expect(
    events
      .filter((e) => e.involvedObject.name === 'overlap')
      .map(({ reason, message: m }) => ({ reason, message: m })),
  ).toContainEqual({ reason: 'SchedulingFailed', message });
}, 90_000);

it('a Gardener-managed shoot domain goes to the seed with that default domain', async () => {
  await apply([shoot('managed', 'dom', { dns: { domain: 'managed.parity.example.com' } })]);
  expect(await boundSeed('managed')).toBe('dom-example');
}, 90_000);

it("a shoot of a NamespacedCloudProfile goes to a seed its parent's selector admits", async () => {
  await apply([
    {
      apiVersion: V1B1,
      kind: 'Shoot',
      metadata: { name: 'namespaced', namespace: NS },
      spec: {
        cloudProfile: { kind: 'NamespacedCloudProfile', name: 'ncp-dev' },
        region: 'ncp',
        provider: { type: 'ncp', workers: [{ name: 'pool', machine: { type: 'm' } }] },
      },
    },
  ]);
  expect(await boundSeed('namespaced')).toBe('ncp-gold');
  const nsprofile = (await l.getJson(['nscpfl', 'ncp-dev', '-n', NS])) as { spec: { parent: unknown } };
  expect(nsprofile.spec.parent).toEqual({ kind: 'CloudProfile', name: 'ncp-parent' });
}, 90_000);
