/**
 * `npm run bench [-- <name> [options]]`: runs one benchmark by name, or every benchmark when no
 * name is given. Benchmarks print ratios measured side by side in one run; none fails on speed.
 */
interface Benchmark {
  description: string;
  load: () => Promise<{ run(argv: string[]): Promise<number> }>;
}

const BENCHMARKS: Record<string, Benchmark> = {
  apiserver: {
    description: 'embedded API server: client-node 1.4 vs raw keep-alive HTTPS, throughput, watch, memory',
    load: () => import('./apiserver.js'),
  },
  runtime: {
    description:
      'serverless runtime: cold start bundled vs unbundled vs node -e 0, idle RSS, events/s via the broker',
    load: () => import('./runtime.js'),
  },
  deployers: {
    description:
      'deployers: mock DeployItems in-process vs through the landscape (items/s), API requests/bytes per reconcile, responsibility check 1 MB vs 1 KB',
    load: () => import('./deployers.js'),
  },
  prober: {
    description:
      'prober: one probe-tick pass over 100 / 300 / 1,000 shoots (s/tick, API requests/shoot, peak memory) and its growth',
    load: () => import('./prober.js'),
  },
  resync: {
    description:
      'resync: one responsibility-check resync pass over 10,000 DeployItems, metadata-only vs full lists (bytes, time, ratio)',
    load: () => import('./resync.js'),
  },
  idle: {
    description:
      'idle landscape: CPU (% of a core) and RSS of every process under npm start two minutes after the start, PingSources on their own schedules vs --embedded-schedules, esbuild left running',
    load: () => import('./idle.js'),
  },
  scheduler: {
    description:
      'scheduler: decisions/s, latency and memory with 1,000 / 10,000 seeds (100,000 shoots), counts kept incrementally vs every shoot listed per decision, side by side',
    load: () => import('./scheduler.js'),
  },
};

function usage(): string {
  const names = Object.entries(BENCHMARKS).map(([name, b]) => `  ${name.padEnd(12)} ${b.description}`);
  return ['usage: npm run bench -- [<name> [options]]', '', 'benchmarks:', ...names].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    console.log(usage());
    return 0;
  }
  const named = first !== undefined && !first.startsWith('-');
  if (named && !(first in BENCHMARKS)) {
    console.error(`unknown benchmark "${first}"\n\n${usage()}`);
    return 2;
  }
  const names = named ? [first] : Object.keys(BENCHMARKS);
  const args = named ? rest : argv;
  let code = 0;
  for (const name of names) {
    const bench = await BENCHMARKS[name].load();
    code = Math.max(code, await bench.run(args));
  }
  return code;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
