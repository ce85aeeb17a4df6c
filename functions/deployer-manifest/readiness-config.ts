/**
 * `readinessChecks` of the provider configuration (upstream's ReadinessCheckConfiguration):
 * `disableDefault` and `custom[] {name, disabled, resourceSelector[], labelSelector,
 * requirements[] {jsonPath, operator, values[] {value}}}`, checked as upstream's validation does
 * (value counts per operator) and for JSON paths this deployer can read. `targetName` (checks on
 * another Target) is refused.
 */
import * as z from '../../shared/config/zod.js';
import { JsonPathError, parsePath } from './jsonpath.js';
import { isRecord } from '@landscape/apimachinery';

/** Kubernetes selection operators a custom readiness requirement may use (upstream's list). */
export const REQUIREMENT_OPERATORS = ['exists', '!', '=', '==', '!=', 'in', 'notin'] as const;
export type RequirementOperator = (typeof REQUIREMENT_OPERATORS)[number];

export interface TypedObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface CustomReadinessRequirement {
  jsonPath: string;
  operator: RequirementOperator;
  /** The `value` of each `values[]` entry. */
  values: unknown[];
}

export interface CustomReadinessCheck {
  name: string;
  disabled: boolean;
  resourceSelector: TypedObjectReference[];
  labelSelector?: { apiVersion: string; kind: string; matchLabels: Record<string, string> };
  requirements: CustomReadinessRequirement[];
}

export interface ReadinessChecks {
  disableDefault: boolean;
  custom: CustomReadinessCheck[];
}

const stringMap = z.record(z.string(), z.string());

const typedRef = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().optional(),
});

const requirementSchema = z.object({
  jsonPath: z.string().min(1),
  operator: z.enum(REQUIREMENT_OPERATORS),
  values: z.array(z.object({ value: z.unknown() }).loose()).optional(),
});

const customCheckSchema = z.object({
  name: z.string().min(1),
  disabled: z.boolean().optional(),
  resourceSelector: z.array(typedRef).optional(),
  labelSelector: z
    .object({ apiVersion: z.string().min(1), kind: z.string().min(1), matchLabels: stringMap })
    .optional(),
  requirements: z.array(requirementSchema).min(1),
  targetName: z.string().optional(),
});

export const readinessChecksSchema = z.object({
  disableDefault: z.boolean().optional(),
  custom: z.array(customCheckSchema).optional(),
});

export function readinessOf(raw: z.output<typeof readinessChecksSchema> | undefined): ReadinessChecks {
  const custom = (raw?.custom ?? []).map((c) => ({
    name: c.name,
    disabled: c.disabled ?? false,
    resourceSelector: c.resourceSelector ?? [],
    ...(c.labelSelector ? { labelSelector: c.labelSelector } : {}),
    requirements: c.requirements.map((r) => ({
      jsonPath: r.jsonPath,
      operator: r.operator,
      values: (r.values ?? []).map((v) => v.value),
    })),
  }));
  return { disableDefault: raw?.disableDefault ?? false, custom };
}

function valueCountProblem(r: CustomReadinessRequirement): string | undefined {
  const n = r.values.length;
  if (['=', '==', '!='].includes(r.operator) && n !== 1)
    return `operator ${r.operator} needs exactly one value`;
  if (['in', 'notin'].includes(r.operator) && n === 0)
    return `operator ${r.operator} needs at least one value`;
  if (['exists', '!'].includes(r.operator) && n !== 0) return `operator ${r.operator} takes no values`;
  return undefined;
}

function jsonPathProblem(r: CustomReadinessRequirement): string | undefined {
  try {
    parsePath(r.jsonPath);
    return undefined;
  } catch (err) {
    if (err instanceof JsonPathError) return `jsonPath: ${err.message}`;
    throw err;
  }
}

/** Value counts upstream's validation demands per operator, and paths this deployer can read. */
export function requirementProblems(checks: readonly CustomReadinessCheck[]): string[] {
  return checks.flatMap((c, i) =>
    c.requirements.flatMap((r, j) =>
      [valueCountProblem(r), jsonPathProblem(r)]
        .filter((p): p is string => p !== undefined)
        .map((p) => `readinessChecks.custom[${i}].requirements[${j}]: ${p}`),
    ),
  );
}

export function targetNameProblems(config: Record<string, unknown>): string[] {
  const rc = isRecord(config.readinessChecks) ? config.readinessChecks : {};
  const custom = Array.isArray(rc.custom) ? (rc.custom as unknown[]) : [];
  return custom.flatMap((c, i) =>
    isRecord(c) && c.targetName !== undefined
      ? [
          `readinessChecks.custom[${i}].targetName: checks on other targets are not supported by this deployer`,
        ]
      : [],
  );
}
