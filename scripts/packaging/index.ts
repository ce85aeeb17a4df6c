/**
 * The packaging checks: `functions/`, `knative/`, `config/`, `serverless.yml` and the Dockerfile
 * kept in step (test/unit/packaging.test.ts), and the config checks of `npm run validate-config`.
 */
import { configProblems } from './configs.js';
import type { PackagingSet } from './model.js';
import { platformProblems } from './platform.js';
import { manifestProblems } from './refs.js';
import { wiringProblems } from './wiring.js';

export { configMountOf, configProblems } from './configs.js';
export type { ConfigCheckOptions, ConfigMount } from './configs.js';
export * from './model.js';
export { manifestProblems } from './refs.js';
export {
  containerProblems,
  fieldRefPaths,
  isSinkBound,
  LABEL_EMITS,
  platformProblems,
  ruleExcess,
  tickScaleProblems,
} from './platform.js';
export { functionFolders, readConfigFiles, readManifests, readPackaging } from './repo.js';
export type { RepoPaths } from './repo.js';
export {
  builtinSchemas,
  closed,
  crdSchemas,
  crdSchemasIn,
  kindValidator,
  schemaProblems,
} from './schemas.js';
export type { KindSchemas, KindValidator } from './schemas.js';
export { dockerfileProblems, imageFunctionsDir, isRouted, wiringProblems } from './wiring.js';

/**
 * Every problem of the set (pure): what could not be read, the conventions and references of
 * `knative/`, what a default Knative install asks of it, the wiring of each function, and its
 * configs. [] when everything is in step.
 */
export function checkPackaging(set: PackagingSet): string[] {
  return [
    ...set.readProblems,
    ...manifestProblems(set),
    ...platformProblems(set),
    ...wiringProblems(set),
    ...configProblems(set, { requireFiles: true }),
  ];
}
