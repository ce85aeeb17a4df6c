/**
 * Processes as Linux's /proc shows them, for the benchmarks that measure a tree of processes (the
 * idle landscape, the deployers bench's landscape): a root and every process whose parent chain
 * leads to it, with CPU in clock ticks and RSS in bytes.
 */
import { readdirSync, readFileSync } from 'node:fs';

const PAGE = 4096;

export interface Proc {
  pid: number;
  ppid: number;
  cmdline: string;
  /** utime + stime + cutime + cstime, clock ticks (a reaped child's time is in its parent's). */
  cpu: number;
  /** utime + stime. */
  own: number;
  rss: number;
}

function readProc(pid: string): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after "pid (comm) ": state, ppid, pgrp, ... utime (12th), stime, cutime, cstime, ... rss (22nd)
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    const own = Number(f[11]) + Number(f[12]);
    return {
      pid: Number(pid),
      ppid: Number(f[1]),
      cmdline,
      own,
      cpu: own + Number(f[13]) + Number(f[14]),
      rss: Number(f[21]) * PAGE,
    };
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * The root and every live process whose parent chain leads to it (a replica in a process group of
 * its own included; one whose parent exited is re-parented and no longer counted).
 */
export function processTree(root: number): Proc[] {
  const all = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(readProc)
    .filter((p): p is Proc => p !== undefined);
  const out = all.filter((p) => p.pid === root);
  let parents = new Set([root]);
  while (parents.size > 0) {
    const next = all.filter((p) => parents.has(p.ppid));
    out.push(...next);
    parents = new Set(next.map((p) => p.pid));
  }
  return out;
}
