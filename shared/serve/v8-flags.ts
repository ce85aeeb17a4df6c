/**
 * The V8 flags every replica of a server bundle runs with (the activator's replicas, the image's
 * NODE_OPTIONS, the training start of shared/serve/train.ts, the runtime bench): one list, since
 * V8 takes a code cache only from a process with the same flags (a replica started with other
 * flags has its cache refused and compiles the bundle from source).
 *
 * `--max-semi-space-size=1` (MiB): V8 grows the young generation from 1 MiB towards 16 MiB as a
 * process allocates, and a function's start allocates mostly what it keeps (modules, schemas,
 * clients), which survives the scavenges and is copied on. A young generation held at 1 MiB
 * promotes it sooner and leaves the replica about 4 MiB smaller (requeue-tick 65.8 → 61.8 MiB,
 * deployer-mock 73.9 → 69.9 MiB after its first event) at the same start time (runtime bench,
 * side by side). The cost is more frequent scavenges under a high allocation rate, which one
 * event at a time per replica does not reach (the deployers bench through the landscape, README).
 * Only function replicas take them: the event plane on Cloud Run, which runs from the same image,
 * sets its own NODE_OPTIONS (scripts/deploy-gcf/derive.ts).
 */
export const REPLICA_V8_FLAGS: readonly string[] = ['--max-semi-space-size=1'];
