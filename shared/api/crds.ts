/**
 * The CustomResourceDefinitions the product ships (one YAML file per CRD, `<group>_<plural>.yaml`,
 * next to this module in `crds/`). The embedded API server installs them at start. The Gardener
 * core and seedmanagement kinds are for the embedded landscape only: on a real garden cluster
 * gardener-apiserver serves them.
 *
 * Nothing here reads the disk until `crdFiles()` is called.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the folder holding the CRD manifests. */
export function crdDirectory(): string {
  return fileURLToPath(new URL('./crds/', import.meta.url));
}

/** Absolute paths of the CRD manifests, sorted by file name (`<group>_<plural>.yaml`). */
export function crdFiles(): string[] {
  const dir = crdDirectory();
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => path.join(dir, name));
}
