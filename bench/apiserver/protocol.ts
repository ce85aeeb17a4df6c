/** Messages between bench/apiserver.ts and the server child over the IPC channel. */

export interface ServerUsage {
  heapUsed: number;
  rss: number;
  /** User + system CPU time of the server process since it started. */
  cpuMicros: number;
  gcAvailable: boolean;
}

export type ParentMessage = { type: 'usage'; id: number; gc: boolean } | { type: 'stop' };

export type ChildMessage =
  { type: 'ready'; kubeconfig: string } | { type: 'usage'; id: number; usage: ServerUsage };
