/**
 * Reading ApiServerSource manifests (sources.knative.dev/v1) into a SourceSpec, with every
 * problem listed. Pure: the caller reads the files.
 */
import { parseAllDocuments } from 'yaml';
import * as z from '../../shared/config/zod.js';
import type { SourceSpec } from './types.js';
import { EVENT_MODES, LABEL_SELECTOR_OPERATORS } from './types.js';

/** A manifest the source cannot run: every problem, each with its path. */
export class ManifestError extends Error {
  constructor(
    readonly where: string,
    readonly problems: readonly string[],
  ) {
    super(`${where}: ${problems.join('; ')}`);
    this.name = 'ManifestError';
  }
}

const EXTENSION_NAME = /^[a-z0-9]+$/;

const labelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(
      z.object({
        key: z.string().min(1),
        operator: z.enum(LABEL_SELECTOR_OPERATORS),
        values: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});

const manifestSchema = z.object({
  apiVersion: z.string().regex(/^sources\.knative\.dev\//, 'expected sources.knative.dev/*'),
  kind: z.literal('ApiServerSource'),
  metadata: z.object({ name: z.string().min(1), namespace: z.string().min(1).optional() }),
  spec: z.object({
    mode: z.enum(EVENT_MODES).optional(),
    resources: z
      .array(
        z.object({
          apiVersion: z.string().min(1),
          kind: z.string().min(1),
          selector: labelSelector.optional(),
        }),
      )
      .min(1),
    namespaceSelector: labelSelector.optional(),
    sink: z
      .object({
        uri: z.string().min(1).optional(),
        ref: z
          .object({
            apiVersion: z.string().optional(),
            kind: z.string().optional(),
            name: z.string().optional(),
            namespace: z.string().optional(),
          })
          .optional(),
      })
      .optional(),
    ceOverrides: z
      .object({
        extensions: z
          .record(
            z.string().regex(EXTENSION_NAME, 'extension names are lowercase letters and digits'),
            z.string(),
          )
          .optional(),
      })
      .optional(),
  }),
});

function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/** A parsed manifest object → SourceSpec; throws ManifestError listing every problem. */
export function sourceSpecFromManifest(manifest: unknown, where = 'ApiServerSource'): SourceSpec {
  const parsed = manifestSchema.safeParse(manifest);
  if (!parsed.success) {
    throw new ManifestError(
      where,
      parsed.error.issues.map((i) => `${issuePath(i.path)}: ${i.message}`),
    );
  }
  const { metadata, spec } = parsed.data;
  const namespace = metadata.namespace ?? 'default';
  return {
    id: `${namespace}/${metadata.name}`,
    namespace,
    name: metadata.name,
    mode: spec.mode ?? 'Reference',
    resources: spec.resources,
    namespaceSelector: spec.namespaceSelector,
    sinkUri: spec.sink?.uri,
    sinkRef: spec.sink?.ref,
    extensions: spec.ceOverrides?.extensions ?? {},
    manifest: manifest as Record<string, unknown>,
  };
}

/** Every ApiServerSource in a YAML text (other kinds are skipped); problems of all of them at once. */
export function sourceSpecsFromYaml(text: string, where = 'yaml'): SourceSpec[] {
  const out: SourceSpec[] = [];
  const problems: string[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length > 0) {
      problems.push(`document ${i}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return;
    }
    const value: unknown = doc.toJS();
    if (typeof value !== 'object' || value === null) return;
    if ((value as { kind?: unknown }).kind !== 'ApiServerSource') return;
    try {
      out.push(sourceSpecFromManifest(value, `${where} document ${i}`));
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      problems.push(err.message);
    }
  });
  if (problems.length > 0) throw new ManifestError(where, problems);
  return out;
}
