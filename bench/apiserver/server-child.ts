/**
 * The embedded API server in a process of its own (started by bench/apiserver.ts with
 * --expose-gc), so the server has a core to itself and its heap holds nothing of the clients.
 * Talks over the IPC channel: `ready` with the kubeconfig, then answers `usage` (after a full
 * GC when asked) and `stop`.
 */
import { startApiServer } from '@landscape/kube-apiserver';
import type { ChildMessage, ParentMessage, ServerUsage } from './protocol.js';
import { crdFiles } from '../../shared/api/crds.js';

function usage(gc: boolean): ServerUsage {
  if (gc && global.gc) {
    global.gc();
    global.gc();
  }
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  return { heapUsed: mem.heapUsed, rss: mem.rss, cpuMicros: cpu.user + cpu.system, gcAvailable: !!global.gc };
}

function reply(msg: ChildMessage): void {
  process.send!(msg);
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('server-child must be started with an IPC channel');
  const srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  process.on('message', (msg: ParentMessage) => {
    if (msg.type === 'usage') reply({ type: 'usage', id: msg.id, usage: usage(msg.gc) });
    else if (msg.type === 'stop') void srv.stop().then(() => process.exit(0));
  });
  // The benchmark process went away without stopping us.
  process.on('disconnect', () => process.exit(1));
  reply({ type: 'ready', kubeconfig: srv.cluster('main').kubeconfigYaml() });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
