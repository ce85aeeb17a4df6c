/**
 * The V8 flags every replica of a server bundle runs with (the activator's replicas, the training
 * start of shared/serve/train.ts, the bundle's package.json start script, the runtime bench; the
 * image's NODE_OPTIONS must carry them too, a packaging rule checks it): one list, since V8 takes a
 * code cache only from a process with the same flags (a replica started with other flags has its
 * cache refused and compiles the bundle from source).
 *
 * None, after measuring one. `--max-semi-space-size=1` (the young generation held at 1 MiB instead
 * of growing towards 16 MiB while a start allocates what it keeps) left each replica 2.5–4 MiB
 * smaller after its first event, but any V8 flag also makes V8 refuse Node's own code cache of
 * its built-in modules, which Node then compiles from source at every start: +14 ms on the no-op
 * function's start (round-robin starts, 2026-11-27: 128.6 ms without, 142.0 ms with it, 144.2 ms
 * with `=2`), level for requeue-tick, +5 ms for deployer-mock. Without it the replicas are at
 * 47.6 / 63.4 / 63.8 MiB (no-op, requeue-tick, deployer-mock), inside the 64 MiB goal.
 */
export const REPLICA_V8_FLAGS: readonly string[] = [];
