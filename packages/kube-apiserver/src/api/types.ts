/**
 * The shapes the embedded API server is built from: resource definitions (built-in kinds and
 * CRDs alike), stored objects and their metadata.
 */

/** An OpenAPI v3 schema node as a CRD's `openAPIV3Schema` holds it (with the x-kubernetes-* extensions). */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

/** A column of `kubectl get` output (CRD additionalPrinterColumns shape). */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Everything the server needs to serve one kind at one group/version. */
export interface ResourceDef {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The resource name in URLs, e.g. 'deployments'. */
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  /** The whole object's schema (apiVersion, kind, metadata, spec, status, ...). */
  schema: JSONSchemaProps;
  subresources: { status?: boolean; scale?: ScaleSubresource };
  printerColumns: PrinterColumn[];
  /** Built-in kinds follow Go decoding rules (type errors are 400); CRDs follow structural-schema rules (422). */
  builtin: boolean;
}

export type { ObjectMeta, OwnerReference } from '@landscape/apimachinery';

import type { ObjectMeta } from '@landscape/apimachinery';

/** Any stored object. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}
