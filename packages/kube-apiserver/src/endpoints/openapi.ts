/**
 * OpenAPI v3 documents per group-version, shaped so kubectl lets the server validate
 * (`fieldValidation` on PATCH operations carrying `x-kubernetes-group-version-kind`) and finds
 * each kind's schema with its patch strategies.
 */
import { createHash } from 'node:crypto';
import { apiVersionOf, type Registry } from '../registry/kinds.js';
import type { JSONSchemaProps, ResourceDef } from '../api/types.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const OBJECT_META_SCHEMA: JSONSchemaProps = {
  type: 'object',
  description: 'ObjectMeta is metadata that all persisted resources must have.',
  properties: {
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    finalizers: {
      type: 'array',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    generateName: { type: 'string' },
    generation: { type: 'integer', format: 'int64' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    name: { type: 'string' },
    namespace: { type: 'string' },
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        required: ['apiVersion', 'kind', 'name', 'uid'],
        properties: {
          apiVersion: { type: 'string' },
          blockOwnerDeletion: { type: 'boolean' },
          controller: { type: 'boolean' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
        },
      },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    resourceVersion: { type: 'string' },
    selfLink: { type: 'string' },
    uid: { type: 'string' },
  },
};

const BUILTIN_PREFIX: Record<string, string> = {
  '': 'io.k8s.api.core',
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
};

/** The component name of a kind's schema, as Kubernetes names them. */
export function schemaName(def: ResourceDef): string {
  if (def.builtin) {
    const prefix = BUILTIN_PREFIX[def.group] ?? `io.k8s.api.${def.group.split('.')[0]}`;
    return `${prefix}.${def.version}.${def.kind}`;
  }
  return `${def.group.split('.').reverse().join('.')}.${def.version}.${def.kind}`;
}

function ref(name: string): Record<string, unknown> {
  return { $ref: `#/components/schemas/${name}` };
}

function param(name: string, in_: 'query' | 'path', type = 'string'): Record<string, unknown> {
  return { name, in: in_, required: in_ === 'path', schema: { type }, uniqueItems: true };
}

const WRITE_PARAMS = [
  param('dryRun', 'query'),
  param('fieldManager', 'query'),
  param('fieldValidation', 'query'),
];
const LIST_PARAMS = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
].map((n) => param(n, 'query'));
const CR_PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
];

/**
 * The patch content types of a kind: custom resources have no strategic merge patch, and kubectl
 * chooses strategic merge for `apply` only where the PATCH operation lists it.
 */
function patchBody(def: ResourceDef): Record<string, unknown> {
  const types = def.builtin ? [...CR_PATCH_TYPES, 'application/strategic-merge-patch+json'] : CR_PATCH_TYPES;
  return {
    content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'object' } }])),
    required: true,
  };
}

function op(
  def: ResourceDef,
  action: string,
  id: string,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  return {
    operationId: `${action}${def.kind}${id}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: def.group, version: def.version, kind: def.kind },
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema: ref(schemaName(def)) } } },
    },
    ...extra,
  };
}

function paths(def: ResourceDef): Record<string, unknown> {
  const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const collection = def.namespaced
    ? `${base}/namespaces/{namespace}/${def.plural}`
    : `${base}/${def.plural}`;
  const pathParams = def.namespaced ? [param('namespace', 'path')] : [];
  const body = { content: { 'application/json': { schema: ref(schemaName(def)) } }, required: true };
  const item = {
    parameters: [...pathParams, param('name', 'path')],
    get: op(def, 'get', '', {}),
    put: op(def, 'put', '', { parameters: WRITE_PARAMS, requestBody: body }),
    patch: op(def, 'patch', '', {
      parameters: [...WRITE_PARAMS, param('force', 'query', 'boolean')],
      requestBody: patchBody(def),
    }),
    delete: op(def, 'delete', '', {
      parameters: [
        param('dryRun', 'query'),
        param('gracePeriodSeconds', 'query', 'integer'),
        param('propagationPolicy', 'query'),
      ],
    }),
  };
  const out: Record<string, unknown> = {
    [collection]: {
      parameters: pathParams,
      get: op(def, 'list', '', { parameters: LIST_PARAMS }),
      post: op(def, 'post', '', { parameters: WRITE_PARAMS, requestBody: body }),
      delete: op(def, 'deletecollection', '', { parameters: LIST_PARAMS }),
    },
    [`${collection}/{name}`]: item,
  };
  for (const sub of ['status', 'scale'] as const) {
    if (!def.subresources[sub]) continue;
    const suffix = sub === 'status' ? 'Status' : 'Scale';
    out[`${collection}/{name}/${sub}`] = {
      parameters: item.parameters,
      get: op(def, 'get', suffix, {}),
      put: op(def, 'put', suffix, { parameters: WRITE_PARAMS, requestBody: body }),
      patch: op(def, 'patch', suffix, {
        parameters: [...WRITE_PARAMS, param('force', 'query', 'boolean')],
        requestBody: patchBody(def),
      }),
    };
  }
  return out;
}

function componentSchema(def: ResourceDef): JSONSchemaProps & Record<string, unknown> {
  return {
    ...def.schema,
    properties: { ...(def.schema.properties ?? {}), metadata: { allOf: [ref(OBJECT_META)] } },
    'x-kubernetes-group-version-kind': [{ group: def.group, version: def.version, kind: def.kind }],
  };
}

/** The OpenAPI v3 document of one group-version. */
export function groupVersionDoc(
  registry: Registry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const defs = registry.inGroupVersion(group, version);
  if (!defs.length) return undefined;
  const schemas: Record<string, unknown> = { [OBJECT_META]: OBJECT_META_SCHEMA };
  for (const def of defs) schemas[schemaName(def)] = componentSchema(def);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: Object.assign({}, ...defs.map(paths)) as Record<string, unknown>,
    components: { schemas },
  };
}

/** Caches each group-version's document and its hash until the registry changes. */
export class OpenApiCache {
  private docs = new Map<string, { body: string; hash: string }>();

  constructor(private readonly registry: Registry) {
    registry.onChange(() => (this.docs = new Map()));
  }

  private entry(group: string, version: string): { body: string; hash: string } | undefined {
    const key = apiVersionOf({ group, version });
    let e = this.docs.get(key);
    if (!e) {
      const doc = groupVersionDoc(this.registry, group, version);
      if (!doc) return undefined;
      const body = JSON.stringify(doc);
      e = { body, hash: createHash('sha512').update(body).digest('hex').slice(0, 128).toUpperCase() };
      this.docs.set(key, e);
    }
    return e;
  }

  document(group: string, version: string): string | undefined {
    return this.entry(group, version)?.body;
  }

  /** GET /openapi/v3: every group-version with the URL of its document. */
  index(): Record<string, unknown> {
    const paths: Record<string, unknown> = {};
    for (const [group, versions] of this.registry.groups()) {
      for (const version of versions) {
        const path = group ? `apis/${group}/${version}` : `api/${version}`;
        paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${this.entry(group, version)!.hash}` };
      }
    }
    return { paths };
  }
}

/**
 * `/openapi/v2`: the server publishes its schemas in v3 (kubectl validates through v3 and lets
 * the server validate); v2 is an empty Swagger 2.0 document, so kubectl's fallback for a kind
 * the server does not serve ends in kubectl's own "no matches for kind" instead of a 404. kubectl
 * asks for it in gnostic protobuf: Document{swagger=1, info=2{title=1, version=2}, paths=8}.
 */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function protoString(field: number, value: string): Buffer {
  const bytes = Buffer.from(value);
  return Buffer.concat([Buffer.from([(field << 3) | 2, bytes.length]), bytes]);
}

function protoMessage(field: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | 2, body.length]), body]);
}

export function openApiV2(protobuf: boolean): { body: Buffer; contentType: string } {
  if (!protobuf) {
    const doc = { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths: {} };
    return { body: Buffer.from(JSON.stringify(doc)), contentType: 'application/json' };
  }
  const info = Buffer.concat([protoString(1, 'Kubernetes'), protoString(2, 'v1.32.0')]);
  const body = Buffer.concat([
    protoString(1, '2.0'),
    protoMessage(2, info),
    protoMessage(8, Buffer.alloc(0)),
  ]);
  return { body, contentType: 'application/octet-stream' };
}
