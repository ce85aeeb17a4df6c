/**
 * First module of the event-service bundle (./main.ts): in one esbuild bundle every module shares
 * the bundle's `import.meta.url`, so the "run as a script" guards of the bundled modules
 * (triggers/plane/main.ts, triggers/broker/dlq-cli.ts: `import.meta.url ===
 * pathToFileURL(process.argv[1]).href`) would all fire. Marking argv[1] before they evaluate keeps
 * them quiet; ./main.ts starts the one it means. Evaluated first because it is imported first.
 */
if (process.argv[1] !== undefined) process.argv[1] = `${process.argv[1]}#event-service`;
