/**
 * `npm run landscape -- <command>`: talks to a running `npm start` through its control file.
 *   status                  clusters and whether they serve; functions, replicas, events
 *   stop-cluster <name>     close a cluster's port (its objects stay), for outage tests
 *   start-cluster <name>    serve it again on the same port
 */
import { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CONTROL_FILE, type ControlFile } from './control.js';
import { renderStatus, type FunctionRow } from './knative/status.js';

async function control(stateDir: string): Promise<ControlFile> {
  const path = join(resolve(stateDir), CONTROL_FILE);
  try {
    return JSON.parse(await readFile(path, 'utf8')) as ControlFile;
  } catch {
    throw new Error(`no running landscape found (${path} is missing): start one with "npm start"`);
  }
}

async function call(stateDir: string, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const c = await control(stateDir);
  let res: Response;
  try {
    res = await fetch(`${c.url}${path}`, { method, headers: { Authorization: `Bearer ${c.token}` } });
  } catch {
    throw new Error(
      `the landscape (pid ${c.pid}) does not answer at ${c.url}; is "npm start" still running?`,
    );
  }
  const body = (await res.json()) as { error?: string };
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body;
}

async function main(): Promise<void> {
  const program = new Command('npm run landscape --').option(
    '--state-dir <dir>',
    'state directory of the running landscape',
    '.local',
  );
  const dir = (): string => program.opts<{ stateDir: string }>().stateDir;
  program
    .command('status')
    .description('list clusters and functions')
    .action(async () => {
      const clusters = (await call(dir(), 'GET', '/clusters')) as {
        name: string;
        url: string;
        running: boolean;
      }[];
      for (const c of clusters)
        console.log(`${c.name.padEnd(14)} ${c.running ? 'running' : 'stopped'}  ${c.url}`);
      const functions = (await call(dir(), 'GET', '/functions')) as FunctionRow[];
      if (functions.length > 0) console.log(`\n${renderStatus(functions)}`);
    });
  for (const action of ['stop-cluster', 'start-cluster'] as const) {
    program
      .command(`${action} <name>`)
      .description(
        action === 'stop-cluster'
          ? 'stop serving a cluster (objects are kept)'
          : 'serve a stopped cluster again',
      )
      .action(async (name: string) => {
        const r = (await call(dir(), 'POST', `/clusters/${encodeURIComponent(name)}/${action}`)) as {
          running: boolean;
        };
        console.log(`cluster ${name}: ${r.running ? 'running' : 'stopped'}`);
      });
  }
  await program.parseAsync(process.argv);
}

main().catch((e: unknown) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});
