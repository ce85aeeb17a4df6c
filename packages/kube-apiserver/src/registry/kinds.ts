/**
 * The kinds a cluster serves: built-ins plus every established CRD. Lookups by URL
 * (group, version, plural) and by kind; CRDs are added and removed at run time.
 */
import type {
  KubeObject,
  PrinterColumn,
  ResourceDef,
  JSONSchemaProps,
  ScaleSubresource,
} from '../api/types.js';

export function apiVersionOf(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** Splits `apps/v1` into group and version; `v1` is the core group. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The storage key of a resource type: `<group>/<plural>` (one store per group-resource, whatever the version). */
export function resourceKey(def: Pick<ResourceDef, 'group' | 'plural'>): string {
  return `${def.group}/${def.plural}`;
}

export class Registry {
  private readonly byPath = new Map<string, ResourceDef>();
  private readonly byOwner = new Map<string, ResourceDef[]>();
  private listeners: (() => void)[] = [];

  constructor(defs: ResourceDef[] = []) {
    for (const def of defs) this.add(def);
  }

  /** Registers a def; `owner` groups the defs of one CRD so they can be replaced together. */
  add(def: ResourceDef, owner = ''): void {
    this.byPath.set(`${def.group}/${def.version}/${def.plural}`, def);
    if (owner) this.byOwner.set(owner, [...(this.byOwner.get(owner) ?? []), def]);
    this.changed();
  }

  removeOwner(owner: string): ResourceDef[] {
    const defs = this.byOwner.get(owner) ?? [];
    for (const def of defs) this.byPath.delete(`${def.group}/${def.version}/${def.plural}`);
    this.byOwner.delete(owner);
    if (defs.length) this.changed();
    return defs;
  }

  ownedBy(owner: string): ResourceDef[] {
    return this.byOwner.get(owner) ?? [];
  }

  lookup(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.byPath.get(`${group}/${version}/${plural}`);
  }

  forKind(apiVersion: string, kind: string): ResourceDef | undefined {
    const { group, version } = parseApiVersion(apiVersion);
    for (const def of this.byPath.values()) {
      if (def.group === group && def.version === version && def.kind === kind) return def;
    }
    return undefined;
  }

  all(): ResourceDef[] {
    return [...this.byPath.values()];
  }

  /** Group → versions (in registration order, first is preferred). */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const def of this.byPath.values()) {
      const versions = out.get(def.group) ?? [];
      if (!versions.includes(def.version)) versions.push(def.version);
      out.set(def.group, versions);
    }
    return out;
  }

  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.all().filter((d) => d.group === group && d.version === version);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: object; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
}

interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: {
    kind: string;
    listKind?: string;
    plural: string;
    singular?: string;
    shortNames?: string[];
    categories?: string[];
  };
  versions: CrdVersion[];
}

/** Turns a CustomResourceDefinition into one ResourceDef per served version. */
export function crdToDefs(crd: KubeObject): ResourceDef[] {
  const spec = crd.spec as CrdSpec;
  return spec.versions
    .filter((v) => v.served !== false)
    .map((v) => ({
      group: spec.group,
      version: v.name,
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      plural: spec.names.plural,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      shortNames: spec.names.shortNames ?? [],
      categories: spec.names.categories ?? [],
      namespaced: spec.scope === 'Namespaced',
      schema: v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      subresources: { status: v.subresources?.status !== undefined, scale: v.subresources?.scale },
      printerColumns: v.additionalPrinterColumns ?? [],
      builtin: false,
    }));
}
