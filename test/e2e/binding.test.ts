/**
 * gardener-apiserver's binding rule under `npm start`, driven with kubectl (issue 14, acceptance 2):
 *
 * - A Shoot no seed fits (its region has no seed) is looked at by schedule-shoot (Create Pending
 *   with upstream's message), then `kubectl patch shoot ... --type merge -p
 *   '{"spec":{"seedName":"x"}}'` is refused as gardener-apiserver's ShootValidator refuses it
 *   (plugin/pkg/shoot/validator/admission.go): spec.seedName stays empty. No seed fits, so the
 *   scheduler cannot bind it meanwhile: the assertion cannot race.
 * - A Shoot that fits is bound by schedule-shoot through `shoots/binding`: the API server's audit
 *   log (`--audit-log`, audit.k8s.io/v1 events) has its `update` of `shoots/binding` answered 200,
 *   and no write of the main resource changed the seed; its managedFields name the subresource.
 *
 * The runtime and seedmanagement families of knative/ only; the fixture controller plays gardenlet
 * (the seed becomes ready after 300 ms).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { scaled, startLandscape, startTimeout, stopTimeout, until, type Landscape } from './support.js';

const NS = 'garden-bind';
const REGION = 'bind';

interface AuditEvent {
  verb: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus: { code: number };
}

interface Shoot {
  metadata: { managedFields?: { manager: string; operation: string; subresource?: string }[] };
  spec: { seedName?: string };
  status?: { lastOperation?: { type?: string; state?: string; description?: string } };
}

let l: Landscape;
let auditDir: string;
let auditLog: string;

const context = (): string => `--- landscape:\n${l.output().slice(-3000)}`;

async function apply(docs: unknown[]): Promise<void> {
  await l.kubectlOk(['apply', '-f', '-'], { input: docs.map((d) => stringify(d)).join('---\n') });
}

const getShoot = async (name: string): Promise<Shoot> =>
  (await l.getJson(['shoot', name, '-n', NS, '--show-managed-fields'])) as Shoot;

/** The audit log's complete lines (the server appends while we read: a last line without its newline is left for later). */
function auditEvents(): AuditEvent[] {
  return readFileSync(auditLog, 'utf8')
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as AuditEvent);
}

const shoot = (name: string, region: string): unknown => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name, namespace: NS },
  spec: {
    cloudProfileName: REGION,
    region,
    provider: { type: REGION, workers: [{ name: 'pool', machine: { type: 'm' } }] },
  },
});

beforeAll(async () => {
  auditDir = mkdtempSync(join(tmpdir(), 'binding-audit-'));
  auditLog = join(auditDir, 'audit.log');
  l = await startLandscape(
    [
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      'knative/seedmanagement',
      '--audit-log',
      auditLog,
      '--fixture-seed-delay',
      '300ms',
      '--fixture-shoot-delay',
      '300ms',
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    { functions: true },
  );
  await apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'CloudProfile',
      metadata: { name: REGION },
      spec: { type: REGION },
    },
    {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Seed',
      metadata: { name: 'bind-seed' },
      spec: {
        provider: { type: REGION, region: REGION },
        settings: { scheduling: { visible: true } },
        networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
      },
    },
  ]);
}, startTimeout() + 30_000);

afterAll(async () => {
  const stopped = await l?.stop();
  rmSync(auditDir, { recursive: true, force: true });
  if (stopped?.code === 0) rmSync(l.stateDir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

it(
  'a direct change of spec.seedName is refused and leaves the shoot unscheduled',
  async () => {
    await apply([shoot('nowhere', 'no-such-region')]);
    // the scheduler looked at it and found no seed: nothing can bind it while we look
    const pending = await until(
      'the unschedulable shoot reported as Create Pending',
      async () => {
        const s = await getShoot('nowhere');
        return s.status?.lastOperation?.state === 'Pending' ? s : undefined;
      },
      { timeoutMs: 60_000, context },
    );
    expect(pending.status?.lastOperation).toMatchObject({ type: 'Create', state: 'Pending' });
    expect(pending.status?.lastOperation?.description).toMatch(/^Failed to schedule Shoot: /);

    const r = await l.kubectl([
      'patch',
      'shoot',
      'nowhere',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      '{"spec":{"seedName":"x"}}',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `Error from server (Forbidden): shoots.core.gardener.cloud "nowhere" is forbidden: spec.seedName 'nil' cannot be changed to 'x' by patching the shoot, please use the shoots/binding subresource`,
    );
    expect((await getShoot('nowhere')).spec.seedName).toBeUndefined();
    // the patch reached the API server and was answered 403 (the scheduler's writes are status patches)
    const main = await until(
      "the refused patch's line in the audit log",
      () => {
        const m = auditEvents().filter(
          (e) =>
            e.verb === 'patch' && e.objectRef?.name === 'nowhere' && e.objectRef.subresource === undefined,
        );
        return m.length > 0 ? m : undefined;
      },
      { timeoutMs: 20_000, context },
    );
    expect(main.map((e) => e.responseStatus.code)).toEqual([403]);
  },
  scaled(120_000),
);

it(
  'the scheduler binds a shoot that fits through shoots/binding (the audit log shows it)',
  async () => {
    await apply([shoot('fits', REGION)]);
    const bound = await until(
      'the shoot bound to bind-seed',
      async () => {
        const s = await getShoot('fits');
        return s.spec.seedName ? s : undefined;
      },
      { timeoutMs: 60_000, context },
    );
    expect(bound.spec.seedName).toBe('bind-seed');
    expect(bound.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: 'gardener-scheduler', operation: 'Update', subresource: 'binding' }),
    );
    const shootWrites = (): AuditEvent[] =>
      auditEvents().filter(
        (e) =>
          e.objectRef?.resource === 'shoots' &&
          e.objectRef.name === 'fits' &&
          ['update', 'patch'].includes(e.verb),
      );
    // the audit log is written after the response: wait for the binding's line
    const writes = await until(
      'the binding write in the audit log',
      () => {
        const w = shootWrites();
        return w.some((e) => e.objectRef?.subresource === 'binding') ? w : undefined;
      },
      { timeoutMs: 20_000, context },
    );
    expect(writes).toContainEqual(
      expect.objectContaining({
        verb: 'update',
        objectRef: expect.objectContaining({ subresource: 'binding', namespace: NS }),
        responseStatus: expect.objectContaining({ code: 200 }),
      }),
    );
    // every successful write of the main resource (the fixture's finalizer, ...) kept the seed unset
    // or unchanged; none of them bound it (a main-resource seedName change would have been a 403)
    expect(
      writes.filter((e) => e.objectRef?.subresource === 'binding' && e.responseStatus.code === 200),
    ).toHaveLength(1);
  },
  scaled(120_000),
);
