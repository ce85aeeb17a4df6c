/**
 * The parts of zod the project uses, re-exported by name: `import * as z from
 * '<…>/shared/config/zod.js'` keeps the `z.string()` style of zod's docs, and a server bundle
 * carries only what its code calls. zod's own `z` (`import { z } from 'zod'`) is one namespace
 * object holding everything, every locale's messages included (`z.locales`), which a bundler
 * cannot leave out: 444 KiB of every function's bundle, read and kept by each replica at its
 * start, against about 90 KiB this way (issue 16, cold start). The messages are zod's English
 * ones either way (zod configures its `en` locale when it loads).
 */
export {
  array,
  boolean,
  enum,
  lazy,
  literal,
  NEVER,
  number,
  object,
  record,
  strictObject,
  string,
  union,
  unknown,
  url,
  ZodError,
  ZodType,
} from 'zod';
export type { core, infer, output, ZodObject } from 'zod';
