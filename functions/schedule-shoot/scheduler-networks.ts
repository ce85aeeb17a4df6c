/**
 * The scheduler's network-disjointedness candidate check, pure (upstream gardener
 * pkg/scheduler/controller/shoot/reconciler.go networksAreDisjointed, and
 * pkg/utils/validation/cidr/disjoint.go ValidateNetworkDisjointedness /
 * ValidateMultiNetworkDisjointedness, cidr.go NetworksIntersect, as of gardener ≥ v1.144).
 *
 * A shoot's `spec.networking.{nodes,services,pods}` (pods and services falling back to the seed's
 * `spec.networks.shootDefaults` when the shoot has none and the default's IP family is one of the
 * shoot's `ipFamilies`, default [IPv4]; pods only for a shoot with workers) and its
 * `status.networking` lists are checked against the seed's `spec.networks.{nodes,pods,services}`:
 * an IPv6 network must not intersect any of them (upstream allows IPv4 overlap since gardener
 * v1.123: the VPN maps overlapping IPv4 ranges), and no network may intersect the reserved
 * ranges. Each finding is worded as upstream's field.Error body; the candidate message is
 * `invalid networks: [<findings joined by a space>]` (Go's %s of a []string).
 *
 * As upstream, a CIDR that does not parse "intersects" every network (NetworksIntersect validates
 * nothing for it); API admission rejects such CIDRs before the scheduler sees them.
 */
import type { IPFamily, Seed, SeedNetworks, Shoot, ShootNetworking } from '../../shared/api/core.js';
import { goQuote } from '@landscape/apimachinery';

/** Upstream's v1beta1constants: the IPv6 VPN range and the IPv4 ranges the VPN maps networks to. */
export const RESERVED_RANGES: readonly (readonly [string, string])[] = [
  ['fd8f:6d53:b97a:1::/96', 'default vpn network'],
  ['240.0.0.0/8', 'reserved kube-apiserver mapping range'],
  ['241.0.0.0/8', 'reserved seed pod network mapping range'],
  ['242.0.0.0/8', 'reserved shoot node network mapping range'],
  ['243.0.0.0/8', 'reserved shoot service network mapping range'],
  ['244.0.0.0/8', 'reserved shoot pod network mapping range'],
];

interface Cidr {
  family: 4 | 6;
  /** The network address (masked), as a number of 32 or 128 bits. */
  base: bigint;
  prefix: number;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function ipv4Value(text: string): bigint | undefined {
  if (!IPV4.test(text)) return undefined;
  return text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(octet), 0n);
}

function hextets(part: string): bigint[] | undefined {
  if (part === '') return [];
  const groups = part.split(':');
  const out: bigint[] = [];
  for (const [i, group] of groups.entries()) {
    const v4 = i === groups.length - 1 && group.includes('.') ? ipv4Value(group) : undefined;
    if (v4 !== undefined) out.push(v4 >> 16n, v4 & 0xffffn);
    else if (/^[0-9a-fA-F]{1,4}$/.test(group)) out.push(BigInt(`0x${group}`));
    else return undefined;
  }
  return out;
}

function ipv6Value(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = hextets(halves[0]);
  const tail = halves.length === 2 ? hextets(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<bigint>(missing).fill(0n), ...tail];
  return all.reduce((acc, h) => (acc << 16n) | h, 0n);
}

/** Go's net.ParseCIDR, as far as the scheduler needs it (IPv4-mapped IPv6 counts as IPv6 here). */
/** Parsed CIDRs by text (a decision checks the same few networks against thousands of seeds). */
const parsed = new Map<string, Cidr | undefined>();
const PARSED_MAX = 10_000;

export function parseCidr(text: string): Cidr | undefined {
  if (parsed.has(text)) return parsed.get(text);
  const cidr = parseCidrText(text);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(text, cidr === undefined ? undefined : Object.freeze(cidr));
  return cidr;
}

function parseCidrText(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0 || !/^\d{1,3}$/.test(text.slice(slash + 1))) return undefined;
  const address = text.slice(0, slash);
  const prefix = Number(text.slice(slash + 1));
  const v4 = ipv4Value(address);
  const family = v4 === undefined ? 6 : 4;
  const value = v4 ?? (address.includes(':') ? ipv6Value(address) : undefined);
  const bits = family === 4 ? 32 : 128;
  if (value === undefined || prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  return { family, base: (value >> hostBits) << hostBits, prefix };
}

function contains(net: Cidr, other: Cidr): boolean {
  const hostBits = BigInt((net.family === 4 ? 32 : 128) - net.prefix);
  return net.family === other.family && other.base >> hostBits === net.base >> hostBits;
}

/** Upstream's NetworksIntersect (an unparsable CIDR intersects everything, as upstream). */
export function networksIntersect(a: string, b: string): boolean {
  const ca = parseCidr(a);
  const cb = parseCidr(b);
  if (!ca || !cb) return true;
  return contains(ca, cb) || contains(cb, ca);
}

export function isIPv6Cidr(text: string): boolean {
  return parseCidr(text)?.family === 6;
}

const invalid = (network: string, detail: string): string => `Invalid value: ${goQuote(network)}: ${detail}`;

interface SeedNets {
  nodes?: string;
  pods: string;
  services: string;
}

function overlapWithSeed(network: string, type: string, seed: SeedNets): string[] {
  const found: string[] = [];
  if (isIPv6Cidr(network)) {
    if (networksIntersect(seed.services, network))
      found.push(invalid(network, `shoot ${type} network intersects with seed service network`));
    if (networksIntersect(seed.pods, network))
      found.push(invalid(network, `shoot ${type} network intersects with seed pod network`));
    if (seed.nodes !== undefined && networksIntersect(seed.nodes, network))
      found.push(invalid(network, `shoot ${type} network intersects with seed node network`));
  }
  for (const [range, name] of RESERVED_RANGES) {
    if (networksIntersect(range, network))
      found.push(invalid(network, `${type} network intersects with ${name} (${range})`));
  }
  return found;
}

/** Upstream's validateOverlapWithSeed for one network type (`node`, `service`, `pod`). */
export function validateOverlapWithSeed(
  networks: readonly string[],
  type: string,
  required: boolean,
  seed: SeedNets,
): string[] {
  const found = networks.flatMap((n) => overlapWithSeed(n, type, seed));
  if (networks.length === 0 && required) found.push(`Required value: ${type}s is required`);
  return found;
}

const isWorkerless = (shoot: Shoot): boolean => (shoot.spec.provider.workers ?? []).length === 0;

const list = (value: string | undefined): string[] => (value === undefined ? [] : [value]);

/** The shoot's pods/services CIDR, or the seed's shoot default when the shoot has none and its family fits. */
function withDefault(
  own: string | undefined,
  fallback: string | undefined,
  families: IPFamily[],
): string | undefined {
  if (own !== undefined || fallback === undefined) return own;
  const family = parseCidr(fallback)?.family;
  if (family === 6 && families.includes('IPv6')) return fallback;
  if (family === 4 && families.includes('IPv4')) return fallback;
  return undefined;
}

/** The shoot's spec networks checked against the seed (upstream ValidateNetworkDisjointedness). */
function specFindings(seedNets: SeedNetworks, shoot: Shoot, networking: ShootNetworking): string[] {
  const workerless = isWorkerless(shoot);
  const families = networking.ipFamilies ?? ['IPv4'];
  const defaults = seedNets.shootDefaults;
  const pods = workerless ? networking.pods : withDefault(networking.pods, defaults?.pods, families);
  const services = withDefault(networking.services, defaults?.services, families);
  return [
    ...validateOverlapWithSeed(list(networking.nodes), 'node', false, seedNets),
    ...validateOverlapWithSeed(list(services), 'service', false, seedNets),
    ...validateOverlapWithSeed(list(pods), 'pod', false, seedNets),
  ];
}

/** The shoot's status networks checked against the seed (upstream ValidateMultiNetworkDisjointedness). */
function statusFindings(seedNets: SeedNetworks, shoot: Shoot): string[] {
  const status = shoot.status?.networking;
  if (!status) return [];
  return [
    ...validateOverlapWithSeed(status.nodes ?? [], 'node', false, seedNets),
    ...validateOverlapWithSeed(status.services ?? [], 'service', true, seedNets),
    ...validateOverlapWithSeed(status.pods ?? [], 'pod', !isWorkerless(shoot), seedNets),
  ];
}

/**
 * Why the seed's networks refuse the shoot (upstream's candidate message), or undefined when they
 * are disjoint. Only for a shoot with `spec.networking` (upstream skips the check otherwise).
 */
export function networksProblem(seed: Seed, shoot: Shoot): string | undefined {
  const networking = shoot.spec.networking;
  const seedNets = seed.spec.networks;
  if (!networking || !seedNets) return undefined;
  const found = [...specFindings(seedNets, shoot, networking), ...statusFindings(seedNets, shoot)];
  return found.length === 0 ? undefined : `invalid networks: [${found.join(' ')}]`;
}
