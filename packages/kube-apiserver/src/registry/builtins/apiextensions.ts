/** apiextensions.k8s.io/v1 CustomResourceDefinition (Kubernetes 1.32). */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { fieldColumn } from './columns.js';
import {
  atomicList,
  bool,
  bytes,
  conditionList,
  int32,
  kindProps,
  obj,
  open,
  str,
  strEnum,
  stringList,
} from './schema.js';

function names(): JSONSchemaProps {
  return obj(
    {
      categories: stringList(),
      kind: str(),
      listKind: str(),
      plural: str(),
      shortNames: stringList(),
      singular: str(),
    },
    ['plural', 'kind'],
  );
}

function printerColumn(): JSONSchemaProps {
  return obj(
    {
      description: str(),
      format: str(),
      jsonPath: str(),
      name: str(),
      priority: int32(),
      type: str('integer, number, string, boolean or date'),
    },
    ['name', 'type', 'jsonPath'],
  );
}

function version(): JSONSchemaProps {
  const scale = obj({ labelSelectorPath: str(), specReplicasPath: str(), statusReplicasPath: str() }, [
    'specReplicasPath',
    'statusReplicasPath',
  ]);
  return obj(
    {
      additionalPrinterColumns: atomicList(printerColumn()),
      deprecated: bool(),
      deprecationWarning: str(),
      name: str(),
      schema: obj({ openAPIV3Schema: open('JSONSchemaProps') }),
      selectableFields: atomicList(obj({ jsonPath: str() }, ['jsonPath'])),
      served: bool(),
      storage: bool(),
      // CustomResourceSubresourceStatus is an empty struct: `status: {}`.
      subresources: obj({ scale, status: { type: 'object', properties: {} } }),
    },
    ['name', 'served', 'storage'],
  );
}

function conversion(): JSONSchemaProps {
  const service = obj({ name: str(), namespace: str(), path: str(), port: int32() }, ['namespace', 'name']);
  const webhook = obj(
    {
      clientConfig: obj({ caBundle: bytes(), service, url: str() }),
      conversionReviewVersions: stringList(),
    },
    ['conversionReviewVersions'],
  );
  return obj({ strategy: strEnum(['None', 'Webhook']), webhook }, ['strategy']);
}

function crdSpec(): JSONSchemaProps {
  return obj(
    {
      conversion: conversion(),
      group: str(),
      names: names(),
      preserveUnknownFields: bool(),
      scope: strEnum(['Cluster', 'Namespaced']),
      versions: atomicList(version()),
    },
    ['group', 'names', 'scope', 'versions'],
  );
}

export function customResourceDefinitionDef(): ResourceDef {
  return {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    listKind: 'CustomResourceDefinitionList',
    plural: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    namespaced: false,
    schema: obj(
      kindProps({
        spec: crdSpec(),
        // conditions and storedVersions are not omitempty in Go: clients send them as null.
        status: obj({
          acceptedNames: names(),
          conditions: { ...conditionList({}, { patch: false }), nullable: true },
          storedVersions: { ...stringList(), nullable: true },
        }),
      }),
      ['spec'],
    ),
    subresources: { status: true },
    // The CRD registry uses the default table convertor: Name and Created At (an RFC 3339 timestamp).
    printerColumns: [fieldColumn('Created At', '.metadata.creationTimestamp')],
    builtin: true,
  };
}
