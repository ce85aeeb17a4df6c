/**
 * `deletionGroups` and `deletionGroupsDuringUpdate` of the manifest provider configuration
 * (pure), as upstream (apis/deployer/utils/managedresource/types_deletiongroup.go, validation
 * `ValidateDeletionGroups`): each group is either `predefinedResourceGroup {type, forceDelete}`
 * (`namespaced-resources`, `cluster-scoped-resources`, `crds`, `empty`) or
 * `customResourceGroup {resources[] {apiVersion, kind, names, namespaces}, forceDelete}`.
 * Empty or absent: upstream's default order (namespaced, cluster-scoped, CRDs).
 * Not built, refused by name: `customResourceGroup.deleteAllResources` and `targetName`
 * (deleting objects the item did not deploy, on another Target).
 */
import * as z from '../../shared/config/zod.js';
import { isRecord } from '@landscape/apimachinery';

export const PREDEFINED_GROUP_TYPES = [
  'namespaced-resources',
  'cluster-scoped-resources',
  'crds',
  'empty',
] as const;
export type PredefinedGroupType = (typeof PREDEFINED_GROUP_TYPES)[number];

export interface ResourceType {
  apiVersion: string;
  kind: string;
  names: string[];
  namespaces: string[];
}

export type DeletionGroupDefinition =
  | { predefined: PredefinedGroupType; forceDelete: boolean }
  | { custom: ResourceType[]; forceDelete: boolean };

/** Upstream's defaultDeletionGroups(). */
export const DEFAULT_DELETION_GROUPS: readonly DeletionGroupDefinition[] = [
  { predefined: 'namespaced-resources', forceDelete: false },
  { predefined: 'cluster-scoped-resources', forceDelete: false },
  { predefined: 'crds', forceDelete: false },
];

const resourceType = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  names: z.array(z.string()).optional(),
  namespaces: z.array(z.string()).optional(),
});

const groupSchema = z.object({
  predefinedResourceGroup: z
    .object({ type: z.string().optional(), forceDelete: z.boolean().optional() })
    .optional(),
  customResourceGroup: z
    .object({
      resources: z.array(resourceType).optional(),
      forceDelete: z.boolean().optional(),
      deleteAllResources: z.boolean().optional(),
      targetName: z.string().optional(),
    })
    .optional(),
});

export const deletionGroupsSchema = z.array(groupSchema).optional();
type RawGroup = z.output<typeof groupSchema>;

function predefinedProblems(type: string | undefined): string[] {
  if (!type) return ['predefinedResourceGroup.type: Required value: must not be empty'];
  if ((PREDEFINED_GROUP_TYPES as readonly string[]).includes(type)) return [];
  const supported = PREDEFINED_GROUP_TYPES.map((t) => `"${t}"`).join(', ');
  return [`predefinedResourceGroup.type: Unsupported value: "${type}": supported values: ${supported}`];
}

function customProblems(c: NonNullable<RawGroup['customResourceGroup']>): string[] {
  const out: string[] = [];
  if (!c.resources || c.resources.length === 0)
    out.push('customResourceGroup.resources: Required value: must not be empty');
  if (c.deleteAllResources)
    out.push('customResourceGroup.deleteAllResources: not supported by this deployer');
  if (c.targetName !== undefined)
    out.push('customResourceGroup.targetName: groups on other targets are not supported by this deployer');
  return out;
}

function groupProblems(g: RawGroup): string[] {
  const p = g.predefinedResourceGroup;
  const c = g.customResourceGroup;
  if (p && c) return ['Invalid value: predefinedResourceGroup and customResourceGroup must not both be set'];
  if (!p && !c) return ['Invalid value: either predefinedResourceGroup or customResourceGroup must be set'];
  return p ? predefinedProblems(p.type) : customProblems(c!);
}

/** Upstream's validation of both settings (schema-checked input). */
export function deletionGroupsProblems(config: Record<string, unknown>): string[] {
  return (['deletionGroups', 'deletionGroupsDuringUpdate'] as const).flatMap((field) => {
    const parsed = deletionGroupsSchema.safeParse(config[field]);
    if (!parsed.success || !parsed.data) return [];
    return parsed.data.flatMap((g, i) => groupProblems(g).map((p) => `${field}[${i}]: ${p}`));
  });
}

function definitionOf(g: RawGroup): DeletionGroupDefinition {
  if (g.predefinedResourceGroup)
    return {
      predefined: g.predefinedResourceGroup.type as PredefinedGroupType,
      forceDelete: g.predefinedResourceGroup.forceDelete ?? false,
    };
  const c = g.customResourceGroup ?? {};
  return {
    custom: (c.resources ?? []).map((r) => ({
      apiVersion: r.apiVersion ?? '',
      kind: r.kind ?? '',
      names: r.names ?? [],
      namespaces: r.namespaces ?? [],
    })),
    forceDelete: c.forceDelete ?? false,
  };
}

/** The groups of a (valid) setting; empty or absent → upstream's defaults. */
export function deletionGroupsOf(raw: unknown): DeletionGroupDefinition[] {
  const parsed = deletionGroupsSchema.safeParse(raw);
  const list = parsed.success ? (parsed.data ?? []) : [];
  return list.length > 0 ? list.map(definitionOf) : [...DEFAULT_DELETION_GROUPS];
}

/** The groups for the uninstall from a configuration that may not parse as a whole any more. */
export function deletionGroupsForDelete(config: unknown): DeletionGroupDefinition[] {
  if (!isRecord(config)) return [...DEFAULT_DELETION_GROUPS];
  const problems = deletionGroupsProblems({ deletionGroups: config.deletionGroups });
  return problems.length > 0 ? [...DEFAULT_DELETION_GROUPS] : deletionGroupsOf(config.deletionGroups);
}
