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
import { parse } from 'yaml';
import { GVK } from '../../shared/api/gvk.js';
import type { GroupVersionKind } from '../../shared/api/gvk.js';
import { isNotFound } from '../../shared/kube/index.js';
import type { KubeClient, ObjectLike } from '../../shared/kube/index.js';

export interface SecretValue {
  /** Where it came from, e.g. 'Secret main/drill/target-kubeconfig key kubeconfig' or 'cluster token main'. */
  source: string;
  value: string;
  /**
   * What part of a larger secret the value is, e.g. 'token-in-kubeconfig' (set by
   * {@link collectSecrets} for the values it takes out of a kubeconfig); absent for a whole value.
   */
  part?: string;
}

export interface SecretFinding {
  source: string;
  /**
   * E.g. 'log <file>:<line>', 'redis key <key>', 'redis key <key> hash field <field>',
   * 'event <cluster> <ns>/<name> message'.
   */
  where: string;
  /**
   * How it was found: 'plain' | 'json-escaped' | 'base64' | 'base64-shifted'; for a part of a
   * kubeconfig the part's name, e.g. 'token-in-kubeconfig' (plain) or
   * 'token-in-kubeconfig, base64'.
   */
  form: string;
}

export interface ScanCluster {
  name: string;
  client: KubeClient;
}

/** Values shorter than this (after trimming whitespace) are not collected: too likely to match by chance. */
export const MIN_SECRET_LENGTH = 12;

/** At most this many lines are reported per value form and log file. */
export const MAX_LINES_PER_FILE = 20;

const PAGE_SIZE = 500;
const REDIS_BATCH = 500;
const REDACTED = '<redacted>';
const DECODED = '-decoded';

/** The user fields of a kubeconfig that are secrets. */
const KUBECONFIG_SECRET_FIELDS = ['token', 'client-key-data', 'client-certificate-data', 'password'] as const;

/** events.k8s.io/v1 Event (not in the product's GVK table: the product writes core/v1 Events). */
export const EVENTS_V1_EVENT: GroupVersionKind = {
  group: 'events.k8s.io',
  version: 'v1',
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
};

interface Meta {
  name?: string;
  namespace?: string;
  uid?: string;
  annotations?: Record<string, string>;
}

interface SecretObject extends ObjectLike {
  metadata?: Meta;
  data?: Record<string, string>;
}

interface TargetObject extends ObjectLike {
  metadata?: Meta;
  spec?: { config?: unknown };
}

interface EventObject extends ObjectLike {
  metadata?: Meta;
  message?: string;
  note?: string;
  reason?: string;
  action?: string;
}

// ---------------------------------------------------------------------------------------------
// Listing

/** Every object of a kind in all namespaces, page by page. */
async function listAll<T extends ObjectLike>(client: KubeClient, gvk: GroupVersionKind): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  do {
    const page = await client.list<T>(gvk, undefined, { limit: PAGE_SIZE, continue: token });
    out.push(...page.items);
    token = page.metadata?.continue || undefined;
  } while (token);
  return out;
}

/** Like {@link listAll}, but an empty list when the cluster does not serve the kind (404). */
async function listServed<T extends ObjectLike>(client: KubeClient, gvk: GroupVersionKind): Promise<T[]> {
  try {
    return await listAll<T>(client, gvk);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

function objectName(cluster: string, meta: Meta | undefined): string {
  return `${cluster}/${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
}

// ---------------------------------------------------------------------------------------------
// Collecting

/** The collected values, first source wins for a value seen twice. */
class ValueSet {
  private readonly byValue = new Map<string, SecretValue>();

  add(v: SecretValue): void {
    const value = v.value.trim();
    if (value.length < MIN_SECRET_LENGTH || this.byValue.has(value)) return;
    this.byValue.set(value, { ...v, value });
  }

  values(): SecretValue[] {
    return [...this.byValue.values()];
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The YAML/JSON document when the text looks like a kubeconfig (has a `users` list), else undefined. */
function parseKubeconfig(text: string): Record<string, unknown>[] | undefined {
  if (!text.includes('users')) return undefined;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(doc) || !Array.isArray(doc.users)) return undefined;
  return doc.users.filter(isObject);
}

/** The decoded text of a base64 `*-data` field when it is text (a PEM), else undefined. */
function decodedPem(b64: string): string | undefined {
  const text = Buffer.from(b64, 'base64').toString('utf8');
  return text.includes('-----BEGIN') ? text : undefined;
}

/** Adds the secret fields of every user of a kubeconfig as separate values. */
function addKubeconfigParts(out: ValueSet, source: string, users: Record<string, unknown>[]): void {
  users.forEach((entry, i) => {
    const user = isObject(entry.user) ? entry.user : {};
    const who = typeof entry.name === 'string' ? entry.name : `#${i}`;
    for (const field of KUBECONFIG_SECRET_FIELDS) {
      const value = user[field];
      if (typeof value !== 'string') continue;
      const fieldSource = `${source}: ${field} of user ${who}`;
      out.add({ source: fieldSource, value, part: `${field}-in-kubeconfig` });
      const pem = field.endsWith('-data') ? decodedPem(value) : undefined;
      if (pem)
        out.add({ source: `${fieldSource} (decoded)`, value: pem, part: `${field}-in-kubeconfig${DECODED}` });
    }
  });
}

/**
 * A URL (e.g. a Redis URL, `redis://:password@host:port`): its password is the secret, the rest
 * names a server; undefined when the value is no URL with a host.
 */
function urlSecret(value: string): { password: string } | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(value)) return undefined;
  try {
    const u = new URL(value);
    return u.host ? { password: decodeURIComponent(u.password) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A value and, when it is a kubeconfig, its secret fields. A URL counts by its password (and the
 * whole URL with it); one without credentials holds nothing secret: functions may name the server.
 */
function addValue(out: ValueSet, source: string, value: string): void {
  const url = urlSecret(value);
  if (url) {
    if (url.password === '') return;
    out.add({ source, value: url.password, part: 'url-password' });
  }
  out.add({ source, value });
  const users = parseKubeconfig(value);
  if (users) addKubeconfigParts(out, source, users);
}

function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

function addSecretObject(out: ValueSet, cluster: string, secret: SecretObject): void {
  const name = objectName(cluster, secret.metadata);
  for (const [key, b64] of Object.entries(secret.data ?? {})) {
    const bytes = Buffer.from(b64, 'base64');
    const source = `Secret ${name} key ${key}`;
    // Binary data cannot show up as text; its base64 (the stored form) still can.
    if (isUtf8(bytes)) addValue(out, source, bytes.toString('utf8'));
    else out.add({ source, value: b64, part: 'base64-data' });
  }
}

function addTarget(out: ValueSet, cluster: string, target: TargetObject): void {
  const config = target.spec?.config;
  if (!isObject(config) || typeof config.kubeconfig !== 'string') return;
  addValue(out, `Target ${objectName(cluster, target.metadata)} spec.config.kubeconfig`, config.kubeconfig);
}

/**
 * Every secret value worth looking for: each Secret's data values in every given cluster
 * (decoded from base64; binary values as their base64 text), each Target's inline
 * `spec.config.kubeconfig` (where Targets are served), and for a value that is a kubeconfig
 * (YAML or JSON with a `users` list) each user's token, client-key-data, client-certificate-data
 * and password as separate values (the `*-data` fields also decoded, when they are PEM text);
 * plus the extra values (cluster admin tokens, ServiceAccount tokens, ...).
 *
 * A value that is a URL (a Redis URL in a Secret) is looked for by its password, and not at all
 * when it has none (a server address is no secret; functions log which Redis they cannot reach).
 *
 * Values are trimmed of surrounding whitespace; values shorter than {@link MIN_SECRET_LENGTH}
 * (12) characters are skipped, as they are too likely to match by chance (a short password is
 * therefore never reported). A value found in several places is kept once, with its first source.
 */
export async function collectSecrets(opts: {
  clusters: ScanCluster[];
  extra?: SecretValue[];
}): Promise<SecretValue[]> {
  const out = new ValueSet();
  for (const { name, client } of opts.clusters) {
    for (const secret of await listAll<SecretObject>(client, GVK.Secret)) addSecretObject(out, name, secret);
    for (const target of await listServed<TargetObject>(client, GVK.Target)) addTarget(out, name, target);
  }
  for (const extra of opts.extra ?? []) out.add(extra);
  return out.values();
}

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
