/**
 * Printer-column builders. Column names are the ones the real API server puts in its Table
 * (`Ready`, `Up-to-date`, `Port(s)`); kubectl prints them upper-cased. As for CRDs, the leading
 * Name column is implied and not listed. A column whose value Kubernetes computes in Go (not a plain
 * field) carries the closest jsonPath and a description starting with `computed:`.
 */
import type { PrinterColumn, ScaleSubresource } from '../../api/types.js';

/** Age, rendered from creationTimestamp as a duration ("5m"), like every built-in table. */
export function ageColumn(): PrinterColumn {
  return { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
}

export function fieldColumn(
  name: string,
  jsonPath: string,
  type: PrinterColumn['type'] = 'string',
  priority = 0,
): PrinterColumn {
  const column: PrinterColumn = { name, type, jsonPath };
  if (priority > 0) column.priority = priority;
  return column;
}

export function computedColumn(
  name: string,
  jsonPath: string,
  computation: string,
  priority = 0,
): PrinterColumn {
  const column: PrinterColumn = { name, type: 'string', jsonPath, description: `computed: ${computation}` };
  if (priority > 0) column.priority = priority;
  return column;
}

/** The wide (priority 1) Containers and Images columns of workload kinds. */
export function templateColumns(): PrinterColumn[] {
  return [
    computedColumn(
      'Containers',
      '.spec.template.spec.containers[*].name',
      'names of spec.template.spec.containers joined with ","',
      1,
    ),
    computedColumn(
      'Images',
      '.spec.template.spec.containers[*].image',
      'images of spec.template.spec.containers joined with ","',
      1,
    ),
  ];
}

/**
 * The Scale subresource as the workload controllers serve it. Their status has no `selector`
 * field: the real server renders Scale.status.selector from spec.selector.
 */
export function workloadScale(): ScaleSubresource {
  return {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  };
}

/**
 * The columns of a ReplicaSet or ReplicationController (printers.go replicaSetColumnDefinitions,
 * replicationControllerColumnDefinitions): Desired, Current, Ready, Age, and wide the template's
 * containers and images and the selector, described as the kind prints it.
 */
export function replicaColumns(selectorDescription: string): PrinterColumn[] {
  return [
    computedColumn('Desired', '.spec.replicas', 'spec.replicas (1 when unset)'),
    computedColumn('Current', '.status.replicas', 'status.replicas, 0 when unset'),
    computedColumn('Ready', '.status.readyReplicas', 'status.readyReplicas, 0 when unset'),
    ageColumn(),
    ...templateColumns(),
    computedColumn('Selector', '.spec.selector', selectorDescription, 1),
  ];
}
