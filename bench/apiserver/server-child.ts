/**
 * The embedded API server in a process of its own (started by bench/apiserver.ts with
 * --expose-gc), so the server has a core to itself and its heap holds nothing of the clients.
 * Talks over the IPC channel: `ready` with the kubeconfig, then answers `usage` (after a full
 * GC when asked) and `stop`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { startApiServer } from '@landscape/kube-apiserver';
import type { ChildMessage, ParentMessage, ServerUsage } from './protocol.js';
import { crdFiles } from '../../shared/api/crds.js';

/**
 * The server's monotonic clock (µs, the clock of V8's CPU profile) at every `usage` call: the
 * phase boundaries of a profile taken with --server-cpu-prof (create is marks 1–2, get 4–5,
 * update 6–7, list 8–9, watch 10–11, delete 12–13).
 */
const marks: number[] = [];

/** With --cpu-prof, writes the marks next to the profile as marks-<pid>.json. */
function writeMarks(): void {
  const dir = process.execArgv.find((a) => a.startsWith('--cpu-prof-dir='))?.slice('--cpu-prof-dir='.length);
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/marks-${process.pid}.json`, JSON.stringify(marks));
}

function usage(gc: boolean): ServerUsage {
  marks.push(Number(process.hrtime.bigint() / 1000n));
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
    else if (msg.type === 'stop') {
      writeMarks();
      void srv.stop().then(() => process.exit(0));
    }
  });
  // The benchmark process went away without stopping us.
  process.on('disconnect', () => process.exit(1));
  reply({ type: 'ready', kubeconfig: srv.cluster('main').kubeconfigYaml() });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
