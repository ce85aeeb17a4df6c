/**
 * Test support of the package: the product's CustomResourceDefinitions (the Gardener and
 * Landscaper kinds the landscape installs), which several tests serve to exercise the per-kind
 * strategies (Shoot, Seed, ManagedSeed) and CRD handling with real schemas. They are read as
 * data from the repository's `shared/api/crds/` folder — the one place the package's tests reach
 * outside the package; the package itself serves whatever CRD files it is given.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute paths of the product CRD manifests, sorted by file name. */
export function productCrdFiles(): string[] {
  const dir = fileURLToPath(new URL('../../../../shared/api/crds/', import.meta.url));
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(dir, name));
}
