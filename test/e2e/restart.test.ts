/**
 * `npm start -- --data-dir DIR`: what kubectl created is there after a clean stop (Ctrl-C) and a
 * restart, with the same uid and resourceVersion, and new writes continue the resourceVersions.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployItem } from './manifests.js';
import { scaled, startLandscape, startTimeout, stopTimeout, TEST_TIMEOUT_MS } from './support.js';

describe('npm start --data-dir', () => {
  it(
    'keeps built-in and custom objects across a clean restart',
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'landscape-data-'));
      const first = await startLandscape(['--data-dir', dataDir, '--no-default-clusters']);
      let before: { cm: any; di: any };
      try {
        await first.kubectlOk(['create', 'namespace', 'keep']);
        await first.kubectlOk(['create', 'configmap', 'kept', '-n', 'keep', '--from-literal=a=b']);
        await first.create('di.yaml', deployItem('kept-di'));
        before = {
          cm: await first.getJson(['configmap', 'kept', '-n', 'keep']),
          di: await first.getJson(['di', 'kept-di']),
        };
      } finally {
        expect((await first.stop()).code).toBe(0);
      }
      const second = await startLandscape(['--data-dir', dataDir, '--no-default-clusters']);
      try {
        const cm = await second.getJson(['configmap', 'kept', '-n', 'keep']);
        const di = await second.getJson(['di', 'kept-di']);
        expect(cm.metadata).toMatchObject({
          uid: before.cm.metadata.uid,
          resourceVersion: before.cm.metadata.resourceVersion,
        });
        expect(cm.data).toEqual({ a: 'b' });
        expect(di.metadata.uid).toBe(before.di.metadata.uid);
        await second.kubectlOk(['label', 'configmap', 'kept', '-n', 'keep', 'restarted=yes']);
        const after = await second.getJson(['configmap', 'kept', '-n', 'keep']);
        expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(
          Number(before.di.metadata.resourceVersion),
        );
      } finally {
        expect((await second.stop()).code).toBe(0);
      }
      // two cold starts and two stops
    },
    2 * (startTimeout() + stopTimeout()) + scaled(TEST_TIMEOUT_MS),
  );
});
