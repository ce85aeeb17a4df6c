/**
 * The drill's secrets scanner. The product rule: secrets (kubeconfigs in Targets and Secrets,
 * tokens) never appear in logs, Redis or Kubernetes Events. After a drill the runner collects
 * every secret value of the landscape ({@link collectSecrets}) and looks for each of them in the
 * log directories, in Redis and in every cluster's Events ({@link scanForSecrets}).
 *
 * Each value is looked for in these forms:
 * - `plain`: the value as is;
 * - `json-escaped`: as it appears inside a JSON string (only for values with newlines, quotes,
 *   backslashes or control characters, e.g. a kubeconfig or a PEM key in a pino log line);
 * - `base64`: the base64 of the value, without padding and without its last character(s) when
 *   they would depend on what follows the value, so it also matches when the value sits at the
 *   start (or at any 3-byte aligned offset) of a larger base64 blob;
 * - `base64-shifted`: the same for the two other byte alignments inside a larger base64 blob
 *   (the first characters, which depend on the bytes before the value, are left off).
 * Not looked for: base64url, hex, URL or `\u`-escaped encodings, compressed or encrypted copies,
 * and a value split across Redis values or Event fields. A multi-line value in a log file is found
 * (files are searched whole) and reported at the line where it starts.
 *
 * A finding never holds the secret: names that end up in `where` (Redis keys, hash fields,
 * Event names, file paths) have every secret value replaced by `<redacted>`.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { GVK } from '../../shared/api/gvk.js';
import { listAll } from '../../shared/kube/io.js';
import {
  DECODED,
  EVENTS_V1_EVENT,
  listServed,
  MAX_LINES_PER_FILE,
  REDACTED,
  REDIS_BATCH,
  type EventObject,
  type ScanCluster,
  type SecretFinding,
  type SecretValue,
} from './secrets-collect.js';

export {
  collectSecrets,
  EVENTS_V1_EVENT,
  MAX_LINES_PER_FILE,
  MIN_SECRET_LENGTH,
  type ScanCluster,
  type SecretFinding,
  type SecretValue,
} from './secrets-collect.js';
// ---------------------------------------------------------------------------------------------
// Needles: the forms a value is looked for in

interface Needle {
  secret: SecretValue;
  text: string;
  form: string;
}

function formOf(secret: SecretValue, encoding: string): string {
  if (!secret.part) return encoding;
  return encoding === 'plain' ? secret.part : `${secret.part}, ${encoding}`;
}

/**
 * The base64 characters of `bytes` placed `shift` bytes after a 3-byte boundary of a larger
 * blob, as far as they do not depend on the bytes around it.
 */
export function base64Core(bytes: Buffer, shift: 0 | 1 | 2): string {
  const total = shift + bytes.length;
  const b64 = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
  const determined = Math.floor(total / 3) * 4 + (total % 3);
  const skip = [0, 2, 3][shift];
  return b64.slice(skip, determined);
}

function needlesOf(secret: SecretValue): Needle[] {
  const { value } = secret;
  const out: Needle[] = [{ secret, text: value, form: formOf(secret, 'plain') }];
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) out.push({ secret, text: escaped, form: formOf(secret, 'json-escaped') });
  const bytes = Buffer.from(value, 'utf8');
  // The base64 of a decoded `*-data` field is that field, a value of its own.
  if (!secret.part?.endsWith(DECODED)) {
    out.push({ secret, text: base64Core(bytes, 0), form: formOf(secret, 'base64') });
  }
  for (const shift of [1, 2] as const) {
    out.push({ secret, text: base64Core(bytes, shift), form: formOf(secret, 'base64-shifted') });
  }
  return out;
}

/** All needles, and a redactor for names printed in `where`. */
class Matcher {
  readonly needles: Needle[];
  private readonly redactTexts: string[];

  constructor(secrets: SecretValue[]) {
    this.needles = secrets.filter((s) => s.value.length > 0).flatMap(needlesOf);
    // Longest first, so a value is not half-replaced by a shorter one inside it.
    this.redactTexts = [...new Set(this.needles.map((n) => n.text))].sort((a, b) => b.length - a.length);
  }

  /** The needles found in `text`. */
  find(text: string): Needle[] {
    return this.needles.filter((n) => text.includes(n.text));
  }

  redact(name: string): string {
    let out = name;
    for (const t of this.redactTexts) if (out.includes(t)) out = out.split(t).join(REDACTED);
    return out;
  }
}

class Findings {
  private readonly byKey = new Map<string, SecretFinding>();

  add(needle: Needle, where: string): void {
    const finding = { source: needle.secret.source, where, form: needle.form };
    const key = `${finding.source}\u0000${finding.where}\u0000${finding.form}`;
    if (!this.byKey.has(key)) this.byKey.set(key, finding);
  }

  list(): SecretFinding[] {
    return [...this.byKey.values()];
  }
}

// ---------------------------------------------------------------------------------------------
// Logs

async function filesUnder(dir: string): Promise<string[]> {
  const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** 1-based line numbers of the (at most `max`) lines holding `needle`. */
function linesHolding(text: string, needle: string, max: number): number[] {
  const lines: number[] = [];
  let line = 1;
  let counted = 0;
  let at = text.indexOf(needle);
  while (at >= 0 && lines.length < max) {
    for (let i = text.indexOf('\n', counted); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) {
      line++;
      counted = i + 1;
    }
    if (lines[lines.length - 1] !== line) lines.push(line);
    at = text.indexOf(needle, at + 1);
  }
  return lines;
}

async function scanLogFile(file: string, matcher: Matcher, findings: Findings): Promise<void> {
  const text = await readFile(file, 'utf8');
  for (const needle of matcher.find(text)) {
    for (const line of linesHolding(text, needle.text, MAX_LINES_PER_FILE)) {
      findings.add(needle, `log ${matcher.redact(file)}:${line}`);
    }
  }
}

async function scanLogs(dirs: string[], matcher: Matcher, findings: Findings): Promise<void> {
  for (const dir of dirs) {
    for (const file of await filesUnder(dir)) await scanLogFile(file, matcher, findings);
  }
}

// ---------------------------------------------------------------------------------------------
// Redis

/** One piece of a Redis value: `detail` is appended to `redis key <key>` (names not yet redacted). */
interface RedisPart {
  detail: string;
  name?: string;
  text: string;
}

type RedisReader = (redis: Redis, key: string) => AsyncGenerator<RedisPart>;

async function* readString(redis: Redis, key: string): AsyncGenerator<RedisPart> {
  const value = await redis.get(key);
  if (value !== null) yield { detail: '', text: value };
}

async function* readHash(redis: Redis, key: string): AsyncGenerator<RedisPart> {
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', REDIS_BATCH);
    for (let i = 0; i + 1 < flat.length; i += 2) {
      yield { detail: ' hash field ', name: flat[i], text: `${flat[i]}\u0000${flat[i + 1]}` };
    }
    cursor = next;
  } while (cursor !== '0');
}

async function* readList(redis: Redis, key: string): AsyncGenerator<RedisPart> {
  for (let start = 0; ; start += REDIS_BATCH) {
    const items = await redis.lrange(key, start, start + REDIS_BATCH - 1);
    for (const [i, text] of items.entries()) yield { detail: ` list index ${start + i}`, text };
    if (items.length < REDIS_BATCH) return;
  }
}

async function* readSet(redis: Redis, key: string): AsyncGenerator<RedisPart> {
  let cursor = '0';
  do {
    const [next, members] = await redis.sscan(key, cursor, 'COUNT', REDIS_BATCH);
    for (const text of members) yield { detail: ' set member', text };
    cursor = next;
  } while (cursor !== '0');
}

async function* readZset(redis: Redis, key: string): AsyncGenerator<RedisPart> {
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(key, cursor, 'COUNT', REDIS_BATCH);
    for (let i = 0; i < flat.length; i += 2) yield { detail: ' zset member', text: flat[i] };
    cursor = next;
  } while (cursor !== '0');
}

async function* readStream(redis: Redis, key: string): AsyncGenerator<RedisPart> {
  let start = '-';
  for (;;) {
    const entries = await redis.xrange(key, start, '+', 'COUNT', REDIS_BATCH);
    for (const [id, fields] of entries) {
      yield { detail: ` stream entry ${id}`, text: fields.join('\u0000') };
    }
    if (entries.length < REDIS_BATCH) return;
    start = `(${entries[entries.length - 1][0]}`;
  }
}

const REDIS_READERS: Readonly<Record<string, RedisReader>> = {
  string: readString,
  hash: readHash,
  list: readList,
  set: readSet,
  zset: readZset,
  stream: readStream,
};

async function scanRedisKey(redis: Redis, key: string, matcher: Matcher, findings: Findings): Promise<void> {
  const where = `redis key ${matcher.redact(key)}`;
  for (const needle of matcher.find(key)) findings.add(needle, `${where} (name)`);
  const reader = REDIS_READERS[await redis.type(key)];
  if (!reader) return;
  for await (const part of reader(redis, key)) {
    const detail = part.name === undefined ? part.detail : `${part.detail}${matcher.redact(part.name)}`;
    for (const needle of matcher.find(part.text)) findings.add(needle, `${where}${detail}`);
  }
}

async function scanRedis(url: string, matcher: Matcher, findings: Findings): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectionName: 'drill-secrets',
  });
  redis.on('error', () => undefined);
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', REDIS_BATCH);
      for (const key of keys) await scanRedisKey(redis, key, matcher, findings);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Events

interface EventPart {
  detail: string;
  text: string;
}

/** The fields of an Event looked at one by one (the whole object is looked at after them). */
function eventFields(event: EventObject, matcher: Matcher): EventPart[] {
  const parts: EventPart[] = [];
  for (const field of ['message', 'note', 'reason', 'action'] as const) {
    const text = event[field];
    if (typeof text === 'string') parts.push({ detail: field, text });
  }
  for (const [k, v] of Object.entries(event.metadata?.annotations ?? {})) {
    parts.push({ detail: `annotation ${matcher.redact(k)}`, text: `${k}\u0000${v}` });
  }
  return parts;
}

function eventWhere(cluster: string, event: EventObject, matcher: Matcher): string {
  const meta = event.metadata;
  return `event ${cluster} ${matcher.redact(`${meta?.namespace ?? ''}/${meta?.name ?? ''}`)}`;
}

function scanEvent(cluster: string, event: EventObject, matcher: Matcher, findings: Findings): void {
  const where = eventWhere(cluster, event, matcher);
  const found = new Set<SecretValue>();
  for (const part of eventFields(event, matcher)) {
    for (const needle of matcher.find(part.text)) {
      found.add(needle.secret);
      findings.add(needle, `${where} ${part.detail}`);
    }
  }
  // The rest of the object, for what no field above holds (a field's JSON-escaped copy would repeat it).
  for (const needle of matcher.find(JSON.stringify(event))) {
    if (!found.has(needle.secret)) findings.add(needle, `${where} object`);
  }
}

/**
 * core/v1 Events, then the events.k8s.io/v1 Events the cluster serves that were not already seen
 * as core/v1 Events (a real API server serves the same objects in both groups).
 */
async function scanEvents(clusters: ScanCluster[], matcher: Matcher, findings: Findings): Promise<void> {
  for (const { name, client } of clusters) {
    const seen = new Set<string>();
    for (const event of await listAll<EventObject>(client, GVK.Event)) {
      if (event.metadata?.uid) seen.add(event.metadata.uid);
      scanEvent(name, event, matcher, findings);
    }
    for (const event of await listServed<EventObject>(client, EVENTS_V1_EVENT)) {
      if (!seen.has(event.metadata?.uid ?? '')) scanEvent(name, event, matcher, findings);
    }
  }
}

/**
 * Looks for every value (plain, JSON-escaped, base64; see the module comment) in:
 * - every regular file under the log directories (recursively; each file read whole; a finding
 *   per line, at most {@link MAX_LINES_PER_FILE} lines per file and form; a missing directory
 *   is an error, not a clean result);
 * - every key of the Redis database of `redisUrl` (SCAN): its name, and its value for strings,
 *   hashes (field names and values), lists, sets, zsets (members) and streams (entry fields and
 *   values); other types (modules) are not read; other database numbers are not scanned;
 * - every Event of every cluster: core/v1 and, where served, events.k8s.io/v1 (message, note,
 *   reason, action, annotations, and the rest of the object, reported as `object`).
 * An unreachable Redis or cluster is an error. Returns the findings (empty: nothing leaked).
 */
export async function scanForSecrets(opts: {
  secrets: SecretValue[];
  logDirs: string[];
  redisUrl: string;
  clusters: ScanCluster[];
}): Promise<SecretFinding[]> {
  const matcher = new Matcher(opts.secrets);
  const findings = new Findings();
  await scanLogs(opts.logDirs, matcher, findings);
  await scanRedis(opts.redisUrl, matcher, findings);
  await scanEvents(opts.clusters, matcher, findings);
  return findings.list();
}
