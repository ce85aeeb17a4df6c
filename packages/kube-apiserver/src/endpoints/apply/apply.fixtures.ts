/**
 * Test fixtures for server-side apply: resource definitions, objects, and a tiny in-memory
 * "server" that applies, creates and updates objects the way the API server will call this module.
 */
import { deploymentDef } from '../../registry/builtins/apps.js';
import { configMapDef } from '../../registry/builtins/core-config.js';
import { crdToDefs } from '../../registry/kinds.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import { applyPatch, trackUpdate } from './apply.js';
import { FieldSet } from './fieldset.js';
import type { ManagedFieldsEntry } from './managed.js';
import { pathString } from './path.js';

/** Objects as tests edit them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export const T0 = Date.parse('2025-03-04T05:06:07.890Z');

/** A time `s` seconds after T0. */
export function at(s: number): Date {
  return new Date(T0 + s * 1000);
}

export const CM = configMapDef();
export const DEPLOY = deploymentDef();

/** A namespaced CRD (widgets.example.com) with a status subresource and typed + open parts. */
export const WIDGET: ResourceDef = crdToDefs({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  tags: { type: 'array', items: { type: 'string' } },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['port', 'protocol'],
                    items: {
                      type: 'object',
                      properties: {
                        port: { type: 'integer' },
                        protocol: { type: 'string', default: 'TCP' },
                        name: { type: 'string' },
                      },
                    },
                  },
                  selector: {
                    type: 'object',
                    'x-kubernetes-map-type': 'atomic',
                    additionalProperties: { type: 'string' },
                  },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: {
                type: 'object',
                properties: { phase: { type: 'string' }, ready: { type: 'boolean' } },
              },
            },
          },
        },
      },
    ],
  },
})[0];

export function configMap(data: Record<string, string>, metadata: KubeObject['metadata'] = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'default', ...metadata },
    data,
  };
}

export interface Container {
  name: string;
  image?: string;
  args?: string[];
  ports?: { containerPort: number; protocol?: string; name?: string }[];
  env?: { name: string; value?: string }[];
}

export function deployment(containers: Container[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
      ...extra,
    },
  };
}

export function widget(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  const obj: KubeObject = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default' },
    spec,
  };
  if (status) obj.status = status;
  return obj;
}

/** What the server stores after an apply: the result plus server-owned metadata. */
export function applied(
  def: ResourceDef,
  current: KubeObject | undefined,
  config: KubeObject,
  manager: string,
  opts: { force?: boolean; now?: Date; subresource?: 'status' } = {},
): KubeObject {
  const { object } = applyPatch(def, current, config, {
    manager,
    force: opts.force ?? false,
    now: opts.now ?? at(0),
    subresource: opts.subresource,
  });
  return { ...object, metadata: { ...object.metadata, uid: current?.metadata.uid ?? 'uid-1' } };
}

function withEntries(obj: KubeObject, entries: ManagedFieldsEntry[]): KubeObject {
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata: entries.length ? { ...metadata, managedFields: entries } : metadata };
}

/** A create by `manager` (operation Update, compared with the kind's zero object). */
export function created(def: ResourceDef, obj: KubeObject, manager: string, now = at(0)): KubeObject {
  const entries = trackUpdate(def, undefined, obj, { manager, operation: 'Update', now });
  return withEntries({ ...obj, metadata: { ...obj.metadata, uid: 'uid-1' } }, entries);
}

/** An update (PUT or non-apply patch) by `manager`: `change` edits a copy of `prev`. */
export function updated(
  def: ResourceDef,
  prev: KubeObject,
  change: (o: Loose) => void,
  manager: string,
  opts: { now?: Date; subresource?: string } = {},
): KubeObject {
  const next = structuredClone(prev);
  change(next);
  const entries = trackUpdate(def, prev, next, {
    manager,
    operation: 'Update',
    now: opts.now ?? at(0),
    subresource: opts.subresource,
  });
  return withEntries(next, entries);
}

export function entries(obj: KubeObject): ManagedFieldsEntry[] {
  return (obj.metadata.managedFields ?? []) as ManagedFieldsEntry[];
}

/** manager → owned paths (as conflict messages spell them), per entry; `name@Op` when two share a name. */
export function owners(obj: KubeObject): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of entries(obj)) {
    const name = e.manager ?? '';
    const label = name in out ? `${name}@${e.operation}` : name;
    out[label] = FieldSet.fromFieldsV1(e.fieldsV1).paths().map(pathString);
  }
  return out;
}

/** The Status of a thrown StatusError. */
export function statusOf(fn: () => unknown): Loose {
  try {
    fn();
  } catch (e) {
    return (e as { toStatus(): unknown }).toStatus();
  }
  throw new Error('expected a Status error');
}
