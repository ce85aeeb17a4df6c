/**
 * The drill's secrets scanner, part one: the shapes, and every secret value of a landscape to
 * look for ({@link collectSecrets}). The scan itself is ./secrets.ts.
 */
import { parse } from 'yaml';
import { isRecord } from '@landscape/apimachinery';
import { GVK } from '../../shared/api/gvk.js';
import type { GroupVersionKind } from '../../shared/api/gvk.js';
import { isNotFound } from '../../shared/kube/index.js';
import { listAll } from '../../shared/kube/io.js';
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

export const REDIS_BATCH = 500;
export const REDACTED = '<redacted>';
export const DECODED = '-decoded';

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

export interface EventObject extends ObjectLike {
  metadata?: Meta;
  message?: string;
  note?: string;
  reason?: string;
  action?: string;
}

// ---------------------------------------------------------------------------------------------
// Listing

/**
 * Every object of a kind in all namespaces (page by page); an empty list when the cluster does not
 * serve the kind (404).
 */
export async function listServed<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
): Promise<T[]> {
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

/** The YAML/JSON document when the text looks like a kubeconfig (has a `users` list), else undefined. */
function parseKubeconfig(text: string): Record<string, unknown>[] | undefined {
  if (!text.includes('users')) return undefined;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(doc) || !Array.isArray(doc.users)) return undefined;
  return doc.users.filter(isRecord);
}

/** The decoded text of a base64 `*-data` field when it is text (a PEM), else undefined. */
function decodedPem(b64: string): string | undefined {
  const text = Buffer.from(b64, 'base64').toString('utf8');
  return text.includes('-----BEGIN') ? text : undefined;
}

/** Adds the secret fields of every user of a kubeconfig as separate values. */
function addKubeconfigParts(out: ValueSet, source: string, users: Record<string, unknown>[]): void {
  users.forEach((entry, i) => {
    const user = isRecord(entry.user) ? entry.user : {};
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
  if (!isRecord(config) || typeof config.kubeconfig !== 'string') return;
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
