/**
 * A KubeConfig from a Landscaper Target (`landscaper.gardener.cloud/kubernetes-cluster`).
 *
 * A Target is user input: its kubeconfig must not make the deployer run a program (exec,
 * auth-provider), read its own files (token-file, client-certificate, certificate-authority, ...;
 * client-node 1.x reads `token-file` already while parsing) or act as someone else
 * (impersonation). Entries are checked against allow-lists, every problem is listed, and the
 * KubeConfig is built from the very object that was checked (re-serialized as JSON), so the two
 * YAML parsers (`yaml` here, js-yaml in client-node) cannot disagree about what was checked.
 *
 * Content (as upstream): inline `spec.config` ({kubeconfig: "<yaml>"}), or `spec.secretRef`
 * {name, key?} to a Secret in the Target's own namespace: with a key, that value is YAML of the
 * config; without, the Secret's whole `data` is the config.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { parse, YAMLParseError } from 'yaml';
import type { Target } from '../api/landscaper.js';
import { KUBERNETES_CLUSTER_TARGET_TYPE } from '../api/landscaper.js';
import { isRecord, objectKey } from '@landscape/apimachinery';
import { allowPlainHttp } from './config.js';
import { TargetKubeconfigError } from './errors.js';
import type { TargetProblem, TargetProblemKind } from './errors.js';

const TOP_LEVEL_KEYS = [
  'apiVersion',
  'kind',
  'clusters',
  'users',
  'contexts',
  'current-context',
  'preferences',
  'extensions',
];
const CLUSTER_KEYS = [
  'server',
  'certificate-authority-data',
  'insecure-skip-tls-verify',
  'tls-server-name',
  'proxy-url',
  'disable-compression',
  'extensions',
];
const USER_KEYS = [
  'token',
  'client-certificate-data',
  'client-key-data',
  'username',
  'password',
  'extensions',
];
const CONTEXT_KEYS = ['cluster', 'user', 'namespace', 'extensions'];

/** Keys refused with a specific reason (anything else outside the allow-lists is InvalidKubeconfig). */
const FORBIDDEN_KEYS: Readonly<Record<string, TargetProblemKind>> = {
  exec: 'ForbiddenExec',
  'auth-provider': 'ForbiddenAuthProvider',
  'token-file': 'ForbiddenFileReference',
  tokenFile: 'ForbiddenFileReference',
  'client-certificate': 'ForbiddenFileReference',
  'client-key': 'ForbiddenFileReference',
  'certificate-authority': 'ForbiddenFileReference',
  as: 'ForbiddenImpersonation',
  'as-uid': 'ForbiddenImpersonation',
  'as-groups': 'ForbiddenImpersonation',
  'as-user-extra': 'ForbiddenImpersonation',
};

type Doc = Record<string, unknown>;

function problem(kind: TargetProblemKind, path: string, message: string): TargetProblem {
  return { kind, path, message };
}

function checkKeys(obj: Doc, allowed: readonly string[], path: string): TargetProblem[] {
  return Object.keys(obj)
    .filter((k) => !allowed.includes(k))
    .map((k) => {
      const kind = FORBIDDEN_KEYS[k];
      return kind
        ? problem(kind, `${path}.${k}`, `${k} is not allowed in a Target kubeconfig`)
        : problem('InvalidKubeconfig', `${path}.${k}`, `unsupported field ${JSON.stringify(k)}`);
    });
}

function checkNamedList(doc: Doc, list: string, inner: string, allowed: readonly string[]): TargetProblem[] {
  const entries = doc[list];
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) return [problem('InvalidKubeconfig', list, 'must be a list')];
  return entries.flatMap((entry: unknown, i): TargetProblem[] => {
    const path = `${list}[${i}]`;
    if (!isRecord(entry) || typeof entry['name'] !== 'string' || entry['name'] === '') {
      return [problem('InvalidKubeconfig', path, 'must be an object with a name')];
    }
    const body = entry[inner];
    if (body === undefined || body === null) return [];
    if (!isRecord(body)) return [problem('InvalidKubeconfig', `${path}.${inner}`, 'must be an object')];
    return checkKeys(body, allowed, `${path}.${inner}`);
  });
}

function names(doc: Doc, list: string): string[] {
  const entries = doc[list];
  return Array.isArray(entries) ? entries.filter(isRecord).map((e) => String(e['name'])) : [];
}

function checkCurrentContext(doc: Doc): TargetProblem[] {
  const current = doc['current-context'];
  if (typeof current !== 'string' || current === '') {
    return [problem('InvalidKubeconfig', 'current-context', 'must name a context')];
  }
  const contexts = Array.isArray(doc['contexts']) ? doc['contexts'].filter(isRecord) : [];
  const ctx = contexts.find((c) => c['name'] === current)?.['context'];
  if (!isRecord(ctx))
    return [problem('InvalidKubeconfig', 'current-context', `context ${current} not found`)];
  if (!names(doc, 'clusters').includes(String(ctx['cluster']))) {
    return [problem('InvalidKubeconfig', 'current-context', `cluster of context ${current} not found`)];
  }
  return [];
}

function checkServers(doc: Doc): TargetProblem[] {
  const clusters = Array.isArray(doc['clusters']) ? doc['clusters'] : [];
  return clusters.flatMap((c: unknown, i): TargetProblem[] => {
    const server = isRecord(c) && isRecord(c['cluster']) ? c['cluster']['server'] : undefined;
    return typeof server === 'string' && /^https?:\/\//.test(server)
      ? []
      : [problem('InvalidKubeconfig', `clusters[${i}].cluster.server`, 'must be an http(s) URL')];
  });
}

/** Every reason to refuse a parsed Target kubeconfig; empty when it may be used. Pure. */
export function validateTargetKubeconfig(doc: unknown): TargetProblem[] {
  if (!isRecord(doc)) return [problem('InvalidKubeconfig', '', 'must be a YAML mapping')];
  return [
    ...checkKeys(doc, TOP_LEVEL_KEYS, '').map((p) => ({ ...p, path: p.path.slice(1) })),
    ...checkNamedList(doc, 'clusters', 'cluster', CLUSTER_KEYS),
    ...checkNamedList(doc, 'users', 'user', USER_KEYS),
    ...checkNamedList(doc, 'contexts', 'context', CONTEXT_KEYS),
    ...checkServers(doc),
    ...checkCurrentContext(doc),
  ];
}

/** Parses YAML without echoing the source in errors (a kubeconfig must not leak into a status). */
function parseYaml(text: string, path: string): { value?: unknown; problems: TargetProblem[] } {
  try {
    return {
      value: parse(text, { prettyErrors: false, uniqueKeys: true, merge: false, maxAliasCount: 20 }),
      problems: [],
    };
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}` : '';
    const code = err instanceof YAMLParseError ? ` (${err.code})` : '';
    return { problems: [problem('InvalidKubeconfig', path, `invalid YAML${code}${where}`)] };
  }
}

/**
 * A KubeConfig from a Target's kubeconfig text, after validateTargetKubeconfig.
 * @throws TargetKubeconfigError listing every problem
 */
export function kubeConfigFromTargetKubeconfig(text: string, target = 'target'): KubeConfig {
  const parsed = parseYaml(text, 'kubeconfig');
  const problems = parsed.problems.length > 0 ? parsed.problems : validateTargetKubeconfig(parsed.value);
  if (problems.length > 0) throw new TargetKubeconfigError(target, problems);
  const kc = new KubeConfig();
  try {
    kc.loadFromString(JSON.stringify(parsed.value));
  } catch (err) {
    const message = err instanceof Error ? err.message : 'cannot load';
    throw new TargetKubeconfigError(target, [problem('InvalidKubeconfig', 'kubeconfig', message)]);
  }
  assertLoadedSafe(kc, target);
  return allowPlainHttp(kc);
}

/** Defense in depth: what client-node loaded has no file, exec or provider auth left. */
function assertLoadedSafe(kc: KubeConfig, target: string): void {
  const unsafeUser = kc.users.find(
    (u) => u.exec || u.authProvider || u.certFile || u.keyFile || u.impersonateUser,
  );
  const unsafeCluster = kc.clusters.find((c) => c.caFile);
  if (unsafeUser || unsafeCluster) {
    throw new TargetKubeconfigError(target, [
      problem('InvalidKubeconfig', 'kubeconfig', 'unsafe entry after loading'),
    ]);
  }
}

/** A Secret's payload as a reader returns it: `data` base64-encoded (as the API), `stringData` plain. */
export interface SecretPayload {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Reads a Secret; undefined when it does not exist. Other failures throw (transient). */
export type ReadSecret = (ref: { namespace: string; name: string }) => Promise<SecretPayload | undefined>;

function decodedSecret(secret: SecretPayload): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  return { ...out, ...secret.stringData };
}

/** Kinds of problem that are no configuration error: the Secret (or its key) may appear later. */
const NOT_YET: readonly TargetProblemKind[] = ['SecretNotFound', 'SecretKeyNotFound'];

/**
 * True when a Target is refused only because its Secret or the Secret's key does not exist (yet):
 * the deployer keeps the job Progressing and retries, as upstream's deployer library returns the
 * resolver's error to controller-runtime (requeued), where a refused kubeconfig is final.
 */
export function isTargetSecretMissing(err: unknown): boolean {
  return (
    err instanceof TargetKubeconfigError &&
    err.problems.length > 0 &&
    err.problems.every((p) => NOT_YET.includes(p.kind))
  );
}

function looksLikeKubeconfig(value: unknown): boolean {
  return isRecord(value) && (value['kind'] === 'Config' || Array.isArray(value['clusters']));
}

async function secretContent(target: Target, read: ReadSecret, name: string): Promise<unknown> {
  const ref = target.spec.secretRef!;
  const namespace = target.metadata?.namespace ?? '';
  if (ref.namespace && ref.namespace !== namespace) {
    const msg = `a Target reads Secrets in its own namespace ${JSON.stringify(namespace)} only`;
    throw new TargetKubeconfigError(name, [
      problem('CrossNamespaceSecretRef', 'spec.secretRef.namespace', msg),
    ]);
  }
  const secret = await read({ namespace, name: ref.name });
  if (!secret) {
    const msg = `secret ${namespace}/${ref.name} not found`;
    throw new TargetKubeconfigError(name, [problem('SecretNotFound', 'spec.secretRef', msg)]);
  }
  const data = decodedSecret(secret);
  if (!ref.key) return data;
  const value = data[ref.key];
  if (value === undefined) {
    // upstream's wording (controller-utils/pkg/landscaper/references.go ResolveSecretReference)
    const msg = `key ${ref.key} in secret ${namespace}/${ref.name} does not exist`;
    throw new TargetKubeconfigError(name, [problem('SecretKeyNotFound', 'spec.secretRef.key', msg)]);
  }
  const parsed = parseYaml(value, 'spec.secretRef.key');
  if (parsed.problems.length > 0) throw new TargetKubeconfigError(name, parsed.problems);
  if (looksLikeKubeconfig(parsed.value)) {
    // as upstream, the value under a key is the Target content ({kubeconfig: "<yaml>"}), not a
    // kubeconfig: say so instead of the bare "no kubeconfig string"
    const msg = `the value of key ${ref.key} in secret ${namespace}/${ref.name} is a kubeconfig itself; with a key, the value is the Target content: {kubeconfig: "<kubeconfig YAML>"} (or leave out the key and keep the kubeconfig under data.kubeconfig)`;
    throw new TargetKubeconfigError(name, [problem('MissingKubeconfig', 'spec.secretRef.key', msg)]);
  }
  return parsed.value;
}

function checkSpec(target: Target, name: string): void {
  const spec = target.spec;
  if (spec?.type !== KUBERNETES_CLUSTER_TARGET_TYPE) {
    const msg = `type must be ${KUBERNETES_CLUSTER_TARGET_TYPE}`;
    throw new TargetKubeconfigError(name, [problem('UnsupportedTargetType', 'spec.type', msg)]);
  }
  const hasConfig = spec.config !== undefined && spec.config !== null;
  if (hasConfig === (spec.secretRef !== undefined && spec.secretRef !== null)) {
    const msg = 'exactly one of spec.config and spec.secretRef must be set';
    throw new TargetKubeconfigError(name, [problem('InvalidTargetSpec', 'spec', msg)]);
  }
}

/**
 * The kubeconfig text of a kubernetes-cluster Target, inline or from its Secret.
 * @throws TargetKubeconfigError when the Target is unusable
 */
export async function targetKubeconfigText(
  target: Target,
  options: { readSecret: ReadSecret },
): Promise<string> {
  const name = objectKey(target.metadata);
  checkSpec(target, name);
  const content = target.spec.secretRef
    ? await secretContent(target, options.readSecret, name)
    : target.spec.config;
  const kubeconfig = isRecord(content) ? content['kubeconfig'] : undefined;
  if (typeof kubeconfig !== 'string' || kubeconfig === '') {
    const msg = 'the Target content has no kubeconfig string';
    throw new TargetKubeconfigError(name, [problem('MissingKubeconfig', 'kubeconfig', msg)]);
  }
  return kubeconfig;
}

/**
 * A KubeConfig for a Landscaper Target, validated.
 * @throws TargetKubeconfigError (terminal: ERR_CONFIGURATION_PROBLEM) listing every problem
 */
export async function kubeConfigForTarget(
  target: Target,
  options: { readSecret: ReadSecret },
): Promise<KubeConfig> {
  const text = await targetKubeconfigText(target, options);
  return kubeConfigFromTargetKubeconfig(text, objectKey(target.metadata));
}
