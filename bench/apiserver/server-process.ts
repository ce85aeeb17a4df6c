/** Starts the server child and talks to it (see server-child.ts). */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage, ServerUsage } from './protocol.js';

export interface ServerProcess {
  kubeconfig: string;
  /** Memory and CPU of the server process; `gc` runs a full collection first. */
  usage(gc: boolean): Promise<ServerUsage>;
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  /** Write a V8 CPU profile of the server process into this directory. */
  cpuProfDir?: string;
}

const CHILD = fileURLToPath(new URL('./server-child.ts', import.meta.url));

export async function startServerProcess(opts: ServerProcessOptions = {}): Promise<ServerProcess> {
  const prof = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
  const child = spawn(process.execPath, ['--expose-gc', ...prof, '--import', 'tsx', CHILD], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kubeconfig = await ready(child);
  let nextId = 0;
  const send = (msg: ParentMessage): void => {
    child.send(msg);
  };
  return {
    kubeconfig,
    usage(gc) {
      const id = ++nextId;
      return new Promise((resolve) => {
        const onMessage = (msg: ChildMessage): void => {
          if (msg.type !== 'usage' || msg.id !== id) return;
          child.off('message', onMessage);
          resolve(msg.usage);
        };
        child.on('message', onMessage);
        send({ type: 'usage', id, gc });
      });
    },
    async stop() {
      send({ type: 'stop' });
      await exited;
    },
  };
}

function ready(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`API server process exited with ${code}`)));
    child.on('message', (msg: ChildMessage) => {
      if (msg.type === 'ready') resolve(msg.kubeconfig);
    });
  });
}
