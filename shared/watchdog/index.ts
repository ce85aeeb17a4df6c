/**
 * The dependency watchdog's pure core (seed 003, specs/dependency-watchdog.md): configuration,
 * shoot selection, the lease probe's candidates and decision, the level-ordered scaling plan, and
 * the weeder's recovery / crash-loop / window decisions.
 * Nothing here does I/O; the functions (probe-tick, weeder) that run it are not built yet.
 */
export * from './config.js';
export * from './shoots.js';
export * from './lease.js';
export * from './scaler.js';
export * from './scaler-run.js';
export * from './weeder.js';
