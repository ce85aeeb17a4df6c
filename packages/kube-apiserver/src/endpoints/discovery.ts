/**
 * Discovery documents: /version, /api, /apis, /api/v1, /apis/<group>[/<version>] in their
 * legacy (non-aggregated) form, which kubectl and client-node accept.
 */
import { apiVersionOf, type Registry } from '../registry/kinds.js';
import type { ResourceDef } from '../api/types.js';
import { BINDING_SUBRESOURCE, bindingDiscoveryEntry } from '../registry/shoot-binding.js';
import { servesSubresource } from '../registry/strategies.js';

export const KUBE_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-landscape' } as const;

export function versionInfo(): Record<string, string> {
  return {
    ...KUBE_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23',
    compiler: 'gc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

function resourceEntries(def: ResourceDef): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: VERBS,
  };
  if (def.shortNames.length) main.shortNames = def.shortNames;
  if (def.categories.length) main.categories = def.categories;
  const out = [main];
  if (def.subresources.status)
    out.push({
      name: `${def.plural}/status`,
      singularName: '',
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: SUB_VERBS,
    });
  if (def.subresources.scale) {
    out.push({
      name: `${def.plural}/scale`,
      singularName: '',
      namespaced: def.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: SUB_VERBS,
    });
  }
  if (servesSubresource(def, BINDING_SUBRESOURCE)) out.push(bindingDiscoveryEntry(def));
  if (servesSubresource(def, 'finalize'))
    out.push({
      name: 'namespaces/finalize',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['update'],
    });
  return out;
}

export function apiResourceList(
  registry: Registry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const defs = registry.inGroupVersion(group, version);
  if (!defs.length) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: defs.sort((a, b) => a.plural.localeCompare(b.plural)).flatMap(resourceEntries),
  };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: list, preferredVersion: list[0] };
}

export function apiGroupList(registry: Registry): Record<string, unknown> {
  const groups = [...registry.groups().entries()].filter(([g]) => g !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([g, v]) => apiGroup(g, v)) };
}

export function apiGroupDoc(registry: Registry, group: string): Record<string, unknown> | undefined {
  const versions = registry.groups().get(group);
  if (!versions || !group) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
}
