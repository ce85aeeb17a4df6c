/**
 * kubectl delete (with finalizers) and wait against `npm start`.
 */
import { configMap, deployItem, readyCondition } from './manifests.js';
import { outcome, scaledSeconds, useLandscape } from './support.js';

const landscape = useLandscape();

const create = (file: string, text: string): Promise<unknown> => landscape().create(file, text);
const jsonOf = (args: string[]): Promise<any> => landscape().getJson(args);

/** What kubectl -v=6 logs once its watch is established (so a change after it is seen as a change). */
const WATCHING = /GET https:\/\/\S+watch=true\S* 200 OK/;

describe('kubectl delete', () => {
  it('deletes by name, by file and by label', async () => {
    const l = landscape();
    await create(
      'del.yaml',
      [
        configMap('del-1', { a: '1' }),
        configMap('del-2', { a: '2' }, { labels: { suite: 'del' } }),
        configMap('del-3', { a: '3' }, { labels: { suite: 'del' } }),
      ].join('---\n'),
    );
    const di = await l.manifest('del-di.yaml', deployItem('del-di'));
    await l.kubectlOk(['create', '-f', di]);

    expect(outcome(await l.kubectl(['delete', 'cm', 'del-1']))).toEqual({
      code: 0,
      stdout: 'configmap "del-1" deleted\n',
      stderr: '',
    });
    expect(outcome(await l.kubectl(['get', 'cm', 'del-1']))).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): configmaps "del-1" not found\n',
    });
    expect(outcome(await l.kubectl(['delete', '-f', di]))).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud "del-di" deleted\n',
      stderr: '',
    });
    expect(outcome(await l.kubectl(['delete', 'cm', '-l', 'suite=del']))).toEqual({
      code: 0,
      stdout: 'configmap "del-2" deleted\nconfigmap "del-3" deleted\n',
      stderr: '',
    });
    expect(outcome(await l.kubectl(['get', 'cm', '-l', 'suite=del']))).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No resources found in default namespace.\n',
    });
  });

  it('reports NotFound, or nothing with --ignore-not-found', async () => {
    const l = landscape();
    expect(outcome(await l.kubectl(['delete', 'di', 'never-was']))).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): deployitems.landscaper.gardener.cloud "never-was" not found\n',
    });
    expect(outcome(await l.kubectl(['delete', 'di', 'never-was', '--ignore-not-found']))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('an object with a finalizer stays (deletionTimestamp set) until a patch removes the finalizer', async () => {
    const l = landscape();
    await create('fin-cm.yaml', configMap('fin-cm', { a: '1' }, { finalizers: ['e2e.test/hold'] }));
    expect(outcome(await l.kubectl(['delete', 'cm', 'fin-cm', '--wait=false']))).toEqual({
      code: 0,
      stdout: 'configmap "fin-cm" deleted\n',
      stderr: '',
    });
    const held = await jsonOf(['cm', 'fin-cm']);
    expect(held.metadata.finalizers).toEqual(['e2e.test/hold']);
    expect(held.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(held.metadata.deletionGracePeriodSeconds).toBe(0);

    const waiting = l.kubectlInBackground([
      'wait',
      'cm/fin-cm',
      '--for=delete',
      `--timeout=${scaledSeconds(20_000)}`,
      '-v=6',
    ]);
    try {
      await waiting.waitFor(WATCHING, { stream: 'stderr' });
      const r = await l.kubectl([
        'patch',
        'cm',
        'fin-cm',
        '--type',
        'json',
        '-p',
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      ]);
      expect(outcome(r)).toEqual({ code: 0, stdout: 'configmap/fin-cm patched\n', stderr: '' });
      expect(await waiting.exit()).toMatchObject({ code: 0, stdout: 'configmap/fin-cm condition met\n' });
    } finally {
      await waiting.stop();
    }
    expect(outcome(await l.kubectl(['get', 'cm', 'fin-cm']))).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): configmaps "fin-cm" not found\n',
    });
  });

  it('kubectl delete (waiting, the default) returns once the finalizer of a custom resource is removed', async () => {
    const l = landscape();
    await create(
      'fin-di.yaml',
      deployItem('fin-di', {}, { finalizers: ['landscaper.gardener.cloud/finalizer'] }),
    );
    const deleting = l.kubectlInBackground(['delete', 'di', 'fin-di', `--timeout=${scaledSeconds(20_000)}`]);
    try {
      await deleting.waitFor(/"fin-di" deleted/);
      await new Promise((r) => setTimeout(r, 500));
      expect(deleting.running()).toBe(true);
      expect((await jsonOf(['di', 'fin-di'])).metadata.deletionTimestamp).toBeDefined();
      await l.kubectlOk([
        'patch',
        'di',
        'fin-di',
        '--type',
        'merge',
        '-p',
        '{"metadata":{"finalizers":null}}',
      ]);
      expect(outcome(await deleting.exit())).toEqual({
        code: 0,
        stdout: 'deployitem.landscaper.gardener.cloud "fin-di" deleted\n',
        stderr: '',
      });
    } finally {
      await deleting.stop();
    }
    expect((await l.kubectl(['get', 'di', 'fin-di'])).stderr).toBe(
      'Error from server (NotFound): deployitems.landscaper.gardener.cloud "fin-di" not found\n',
    );
  });
});

describe('kubectl wait', () => {
  beforeAll(() => create('wait-di.yaml', deployItem('wait-di')));

  it('--for=condition=Ready returns when a status patch sets the condition', async () => {
    const l = landscape();
    const waiting = l.kubectlInBackground([
      'wait',
      'di/wait-di',
      '--for=condition=Ready',
      `--timeout=${scaledSeconds(20_000)}`,
      '-v=6',
    ]);
    try {
      await waiting.waitFor(WATCHING, { stream: 'stderr' });
      await l.kubectlOk([
        'patch',
        'di',
        'wait-di',
        '--subresource=status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({ status: { observedGeneration: 1, conditions: [readyCondition('False')] } }),
      ]);
      await new Promise((r) => setTimeout(r, 300));
      expect(waiting.running()).toBe(true);
      await l.kubectlOk([
        'patch',
        'di',
        'wait-di',
        '--subresource=status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({
          status: { observedGeneration: 1, phase: 'Succeeded', conditions: [readyCondition('True')] },
        }),
      ]);
      expect(await waiting.exit()).toMatchObject({
        code: 0,
        stdout: 'deployitem.landscaper.gardener.cloud/wait-di condition met\n',
      });
    } finally {
      await waiting.stop();
    }
  });

  it('--for=jsonpath on a field the status patch set', async () => {
    const r = await landscape().kubectl([
      'wait',
      'di/wait-di',
      '--for=jsonpath={.status.phase}=Succeeded',
      '--timeout=5s',
    ]);
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud/wait-di condition met\n',
      stderr: '',
    });
  });

  it('times out on a condition that never comes', async () => {
    const r = await landscape().kubectl(['wait', 'di/wait-di', '--for=condition=Missing', '--timeout=1s']);
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: timed out waiting for the condition on deployitems/wait-di\n',
    });
  });

  it('--for=delete returns when the object is deleted', async () => {
    const l = landscape();
    const waiting = l.kubectlInBackground([
      'wait',
      'di/wait-di',
      '--for=delete',
      `--timeout=${scaledSeconds(20_000)}`,
      '-v=6',
    ]);
    try {
      await waiting.waitFor(WATCHING, { stream: 'stderr' });
      await l.kubectlOk(['delete', 'di', 'wait-di', '--wait=false']);
      expect(await waiting.exit()).toMatchObject({
        code: 0,
        stdout: 'deployitem.landscaper.gardener.cloud/wait-di condition met\n',
      });
    } finally {
      await waiting.stop();
    }
  });
});
