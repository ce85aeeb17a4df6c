/** The shape of a built-in kind's printer columns, and the columns several kinds share. */
import type { KubeObject } from '../../api/types.js';
import { CONTAINERS, CREATION_TIMESTAMP, IMAGES, NAME } from './descriptions.js';
import { ageOf, asArray, asRecord, str } from './format.js';

export interface CellContext {
  now: Date;
}

/** Computes one cell of a row, as the Go printer function does for that column. */
export type Cell = (obj: KubeObject, ctx: CellContext) => unknown;

/** A column as Kubernetes defines it in printers.go, with the code that fills its cells. */
export interface BuiltinColumn {
  type: string;
  description: string;
  format?: string;
  cell: Cell;
}

/** Columns of one kind, by column name. */
export type KindColumns = Record<string, BuiltinColumn>;

export function column(type: string, description: string, cell: Cell): BuiltinColumn {
  return { type, description, cell };
}

export const nameColumn: BuiltinColumn = {
  type: 'string',
  format: 'name',
  description: NAME,
  cell: (o) => o.metadata.name ?? '',
};

export const ageColumn: BuiltinColumn = column('string', CREATION_TIMESTAMP, (o, ctx) =>
  ageOf(o.metadata.creationTimestamp, ctx.now),
);

/** Reads a nested field (`field(o, 'spec', 'template')`); undefined when any step is missing. */
export function field(obj: unknown, ...path: string[]): unknown {
  let v: unknown = obj;
  for (const key of path) v = asRecord(v)[key];
  return v;
}

/** `layoutContainerCells`: container names and images, each joined with ",". */
function containerCells(podSpec: unknown): { names: string; images: string } {
  const containers = asArray(asRecord(podSpec).containers).map(asRecord);
  return {
    names: containers.map((c) => str(c.name)).join(','),
    images: containers.map((c) => str(c.image)).join(','),
  };
}

/** The wide Containers and Images columns of a kind whose pod template is at `path`. */
export function templateColumns(...path: string[]): KindColumns {
  return {
    Containers: column('string', CONTAINERS, (o) => containerCells(field(o, ...path)).names),
    Images: column('string', IMAGES, (o) => containerCells(field(o, ...path)).images),
  };
}
