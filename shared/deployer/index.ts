/**
 * The Landscaper deployer contract: the plugin interface (types.ts) and the pure decisions the
 * runtime (run.ts) applies. Nothing here does I/O; time and ids are injected.
 *
 * - job.ts            Landscaper side: annotations + new jobs; deployer side: mustWork, startJob
 * - responsibility.ts type / Target / target selectors (metadata first)
 * - result.ts         StepResult / DeployerError → status (phase, errors, jobIDFinished)
 * - operation.ts      operation annotation: test-reconcile, interrupt
 * - timeout.ts        progressing and pickup timeouts
 * - hooks.ts          extension hooks (seed 002): registry, run, aggregation
 * - continuous.ts     continuous reconcile, the first real hook
 * - status.ts         write the status only when it changed
 * - time.ts           timeout settings (a Go duration or none)
 */
export * from './types.js';
export * from './time.js';
/** The deployer contract's durations are Go durations (the one parser is apimachinery's). */
export { parseGoDuration } from '@landscape/apimachinery';
export * from './status.js';
export * from './job.js';
export * from './responsibility.js';
export * from './result.js';
export * from './operation.js';
export * from './timeout.js';
export * from './hooks.js';
export * from './continuous.js';
