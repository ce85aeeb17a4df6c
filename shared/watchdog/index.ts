/**
 * The dependency watchdog's pure core (seed 003, specs/dependency-watchdog.md): configuration,
 * shoot selection, the lease probe's candidates and decision, the level-ordered scaling plan and
 * its flow across invocations, the prober's schedule, and
 * the weeder's recovery / crash-loop / window decisions.
 * Nothing here does I/O; functions/probe-tick and functions/weeder run it.
 */
export * from './config.js';
export * from './shoots.js';
export * from './lease.js';
export * from './scaler.js';
export * from './restmapper.js';
export * from './flow.js';
export * from './prober.js';
export * from './weeder.js';
