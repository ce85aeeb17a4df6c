/**
 * The service IP and node port allocators of a cluster, as kube-apiserver's
 * (k8s.io/kubernetes pkg/registry/core/service/ipallocator, portallocator, and the messages of
 * pkg/registry/core/service/storage/alloc.go): cluster IPs from the service CIDR 10.96.0.0/12
 * (the first address, 10.96.0.1, is the `default/kubernetes` Service's), node ports from
 * 30000-32767. Pure: what is taken is passed in (the cluster's stored Services).
 */
import { invalidField } from './field-rules.js';
import type { FieldError } from '../api/errors.js';

export const SERVICE_CIDR = '10.96.0.0/12';
const BASE = (10 << 24) | (96 << 16);
const SIZE = 1 << 20;
/** The address of the `default/kubernetes` Service (the first of the range). */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
export const NODE_PORT_RANGE = { first: 30000, last: 32767 };

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function toNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
}

export function isIPv4(ip: string): boolean {
  return IPV4.test(ip);
}

/** Whether an IPv4 address lies inside the service CIDR. */
export function inServiceRange(ip: string): boolean {
  const n = toNumber(ip);
  return n >= BASE && n < BASE + SIZE;
}

/** A free address of the range (never the network, broadcast or 10.96.0.1), from a random start. */
export function allocateClusterIP(taken: ReadonlySet<string>, random: () => number = Math.random): string {
  const start = 2 + Math.floor(random() * (SIZE - 3));
  for (let i = 0; i < SIZE - 3; i++) {
    const ip = toIp(BASE + 2 + ((start - 2 + i) % (SIZE - 3)));
    if (!taken.has(ip)) return ip;
  }
  throw new Error('range is full');
}

/** Why a requested cluster IP cannot be had (the REST allocator's words), or nothing. */
export function clusterIPProblem(ip: string, taken: ReadonlySet<string>, clusterIPs: string[]): FieldError[] {
  if (!inServiceRange(ip)) {
    const detail = `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`;
    return [invalidField('spec.clusterIPs', clusterIPs, detail)];
  }
  if (taken.has(ip))
    return [
      invalidField(
        'spec.clusterIPs',
        clusterIPs,
        `failed to allocate IP ${ip}: provided IP is already allocated`,
      ),
    ];
  return [];
}

/** A free node port, from a random start. */
export function allocateNodePort(taken: ReadonlySet<number>, random: () => number = Math.random): number {
  const size = NODE_PORT_RANGE.last - NODE_PORT_RANGE.first + 1;
  const start = Math.floor(random() * size);
  for (let i = 0; i < size; i++) {
    const port = NODE_PORT_RANGE.first + ((start + i) % size);
    if (!taken.has(port)) return port;
  }
  throw new Error('range is full');
}
