/**
 * `npm run dlq -- list | show <id> | replay <id|--all> | --help`: inspects and replays the broker's dead
 * letters. Options: `--dir` (default `.local/dlq`), `--broker <name>` (one broker's file),
 * `--broker-url <url>` (the ingress to replay into; else `ingressUrl` from `--state-file`,
 * default `.local/broker.json`), `--json`. A replayed letter is removed once the ingress
 * answers 2xx (if it fails again it comes back as a new dead letter).
 *
 * The ingress token (`Authorization: Bearer`) is `$LANDSCAPE_INGRESS_TOKEN`, else the state
 * file's `ingressToken` when the replay goes to the state file's ingress (never to another URL).
 */
import { isOneOf } from '@landscape/apimachinery';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { emit, eventFromJSON } from '../../shared/events/index.js';
import { writeFileAtomic } from '../../shared/files/atomic.js';
import type { FetchLike } from '../../shared/events/index.js';
import { JsonlDeadLetterStore, storesIn } from './dlq.js';
import { TTL_ATTRIBUTE } from './ttl.js';
import type { DeadLetter, DeadLetterStore } from './dlq.js';

export const DLQ_COMMANDS = ['list', 'show', 'replay'] as const;
export type DlqCommand = (typeof DLQ_COMMANDS)[number];
export const isDlqCommand: (value: unknown) => value is DlqCommand = isOneOf(DLQ_COMMANDS);

export const DEFAULT_DLQ_DIR = '.local/dlq';
export const DEFAULT_STATE_FILE = '.local/broker.json';

/** What the running broker leaves for the CLI (and local tools). */
export interface BrokerState {
  ingressUrl: string;
  /** The bearer token the ingress requires (absent: none). */
  ingressToken?: string;
}

/** Writes the state file atomically, readable by its owner only (it may hold the ingress token). */
export async function writeBrokerState(file: string, state: BrokerState): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

export async function readBrokerState(file: string): Promise<BrokerState | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<BrokerState>;
    if (typeof parsed.ingressUrl !== 'string') return undefined;
    return {
      ingressUrl: parsed.ingressUrl,
      ...(typeof parsed.ingressToken === 'string' ? { ingressToken: parsed.ingressToken } : {}),
    };
  } catch {
    return undefined;
  }
}

export interface DlqCliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  fetch?: FetchLike;
  /** Stores to use instead of the files under --dir (tests). */
  stores?: DeadLetterStore[];
  /** The environment ($LANDSCAPE_INGRESS_TOKEN); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

const USAGE =
  'usage: dlq list | show <id> | replay <id|--all> [--dir D] [--broker B] [--broker-url URL] [--state-file F] [--json]';

/** `npm run dlq -- --help` (also `-h`, `help`): stdout, exit 0. */
export const HELP = `${USAGE}

Inspects and replays the dead letters the embedded broker keeps (one JSON line per letter).

Commands:
  list                 every dead letter, oldest first: ID TIME TRIGGER CODE REASON TYPE
  show <id>            one dead letter as JSON (event, error extensions, reason, attempts)
  replay <id>          sends the event to the broker ingress again; removed once it answers 2xx
  replay --all         replays every dead letter (exit 1 if any replay fails)

Options:
  --dir D              the dead-letter folder (default ${DEFAULT_DLQ_DIR})
  --broker B           only the file of broker B (<namespace>.<name>, or <name> in default)
  --broker-url URL     the ingress to replay into (default: ingressUrl of the state file)
  --state-file F       the running broker's state file (default ${DEFAULT_STATE_FILE})
  --json               list as JSON
  -h, --help           this text

The ingress token is $LANDSCAPE_INGRESS_TOKEN, else the state file's (only for its own ingress).`;

interface Parsed {
  command: DlqCommand;
  id?: string;
  all: boolean;
  json: boolean;
  dir: string;
  broker?: string;
  brokerUrl?: string;
  stateFile: string;
}

function parse(argv: readonly string[]): Parsed | 'help' {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      dir: { type: 'string', default: DEFAULT_DLQ_DIR },
      broker: { type: 'string' },
      'broker-url': { type: 'string' },
      'state-file': { type: 'string', default: DEFAULT_STATE_FILE },
    },
  });
  const [command, id] = positionals;
  if (values.help || command === 'help') return 'help';
  if (!isDlqCommand(command)) throw new Error(command ? `unknown command "${command}"` : 'no command');
  return {
    command,
    ...(id !== undefined ? { id } : {}),
    all: values.all,
    json: values.json,
    dir: values.dir,
    ...(values.broker !== undefined ? { broker: values.broker } : {}),
    ...(values['broker-url'] !== undefined ? { brokerUrl: values['broker-url'] } : {}),
    stateFile: values['state-file'],
  };
}

async function openStores(args: Parsed, io: DlqCliIo): Promise<DeadLetterStore[]> {
  if (io.stores) return io.stores;
  if (args.broker !== undefined) return [new JsonlDeadLetterStore(join(args.dir, `${args.broker}.jsonl`))];
  return storesIn(args.dir);
}

async function allLetters(
  stores: DeadLetterStore[],
): Promise<{ letter: DeadLetter; store: DeadLetterStore }[]> {
  const out: { letter: DeadLetter; store: DeadLetterStore }[] = [];
  for (const store of stores) for (const letter of await store.list()) out.push({ letter, store });
  return out.sort((a, b) => a.letter.time.localeCompare(b.letter.time));
}

function row(l: DeadLetter): string {
  const type = typeof l.event.type === 'string' ? l.event.type : '';
  return [l.id, l.time, l.trigger, String(l.extensions.knativeerrorcode), l.reason, type].join('\t');
}

async function list(args: Parsed, io: DlqCliIo, stores: DeadLetterStore[]): Promise<number> {
  const letters = (await allLetters(stores)).map((x) => x.letter);
  if (args.json) io.out(JSON.stringify(letters, null, 2));
  else {
    io.out(['ID', 'TIME', 'TRIGGER', 'CODE', 'REASON', 'TYPE'].join('\t'));
    for (const l of letters) io.out(row(l));
  }
  return 0;
}

async function show(args: Parsed, io: DlqCliIo, stores: DeadLetterStore[]): Promise<number> {
  const found = (await allLetters(stores)).find((x) => x.letter.id === args.id);
  if (!found) {
    io.err(`no dead letter ${args.id ?? ''}`);
    return 1;
  }
  io.out(JSON.stringify(found.letter, null, 2));
  return 0;
}

interface Target {
  url: string;
  token?: string;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** The ingress to replay into and its token (the state file's only for the state file's ingress). */
async function replayTarget(args: Parsed, io: DlqCliIo): Promise<Target | undefined> {
  const state = await readBrokerState(args.stateFile);
  const url = args.brokerUrl ?? state?.ingressUrl;
  if (url === undefined) return undefined;
  const envToken = (io.env ?? process.env)['LANDSCAPE_INGRESS_TOKEN'];
  const stateToken = state && sameOrigin(url, state.ingressUrl) ? state.ingressToken : undefined;
  const token = envToken || stateToken;
  return { url, ...(token ? { token } : {}) };
}

/** A replay the ingress does not answer within this gives up (reported; the letter stays). */
const REPLAY_TIMEOUT_MS = 30_000;

async function replayOne(
  target: Target,
  entry: { letter: DeadLetter; store: DeadLetterStore },
  io: DlqCliIo,
): Promise<boolean> {
  const { letter, store } = entry;
  // a replay is a new send: without the broker TTL the letter kept (a reply refused at TTL 1 would
  // be refused again), so the ingress gives it the maximum, as it does an event any sender posts
  const { [TTL_ATTRIBUTE]: _ttl, ...event } = letter.event;
  const result = await emit(eventFromJSON(event), {
    sink: target.url,
    fetch: io.fetch,
    timeoutMs: REPLAY_TIMEOUT_MS,
    ...(target.token ? { token: target.token } : {}),
  });
  if (result.ok) {
    await store.remove(letter.id);
    io.out(`replayed ${letter.id} -> HTTP ${result.status}`);
    return true;
  }
  io.err(
    `replay of ${letter.id} failed: ${result.kind === 'response' ? `HTTP ${result.status} ${result.body.trim()}` : result.error}`,
  );
  return false;
}

async function replay(args: Parsed, io: DlqCliIo, stores: DeadLetterStore[]): Promise<number> {
  if (!args.all && args.id === undefined) {
    io.err('replay needs an id or --all');
    return 2;
  }
  const target = await replayTarget(args, io);
  if (target === undefined) {
    io.err(`no broker URL: pass --broker-url or start the broker (state file ${args.stateFile})`);
    return 2;
  }
  const entries = (await allLetters(stores)).filter((x) => args.all || x.letter.id === args.id);
  if (entries.length === 0 && !args.all) {
    io.err(`no dead letter ${args.id ?? ''}`);
    return 1;
  }
  let failed = 0;
  for (const entry of entries) if (!(await replayOne(target, entry, io))) failed++;
  return failed === 0 ? 0 : 1;
}

/** Runs the CLI; resolves with the exit code. */
export async function runDlqCli(argv: readonly string[], io: DlqCliIo): Promise<number> {
  let args: Parsed | 'help';
  try {
    args = parse(argv);
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}\n(npm run dlq -- --help for more)`);
    return 2;
  }
  if (args === 'help') {
    io.out(HELP);
    return 0;
  }
  const stores = await openStores(args, io);
  if (args.command === 'list') return list(args, io, stores);
  if (args.command === 'show') return show(args, io, stores);
  return replay(args, io, stores);
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  runDlqCli(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
