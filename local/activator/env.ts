/**
 * The environment of a replica, as Knative and Eventing give it on a cluster, mapped onto the
 * embedded landscape (pure but for the injected lookup of Secret/ConfigMap keys):
 * - a Pod's hostname (its name) and its service account's namespace file, which a replica process
 *   has neither of → POD_NAME and POD_NAMESPACE, the overrides shared/function/pod.ts reads first
 *   (a Service's own env entries still win, as a container's env does on a cluster); the downward
 *   API (`valueFrom.fieldRef`), which a default Knative install refuses, is still understood;
 * - K_SINK naming the in-cluster broker ingress (what a SinkBinding puts there:
 *   local/knative/sinkbinding.ts) → the same broker path on the local ingress, and K_SINK_TOKEN
 *   the local ingress's bearer token (Knative's cluster-local ingress needs none); a Service no
 *   SinkBinding selects has no K_SINK;
 * - CONFIG_FILE inside the Service's config mount → `<configDir>/<function>.yaml`;
 * - Secret/ConfigMap key refs → read from the main cluster (a missing optional one is left out);
 * - K_SERVICE, K_REVISION, K_CONFIGURATION, FUNCTION_TARGET, KUBECONFIG (the in-cluster
 *   config's stand-in), LANDSCAPE_ACTIVATOR_URL (the activator's /status, where the embedded
 *   landscape keeps what Knative's PodAutoscalers say on a cluster) and
 *   PATH/HOME/TZ/LANG/NODE_OPTIONS/LOG_LEVEL from the landscape's own process.
 */
import { join } from 'node:path';
import type { EnvSource, FunctionService } from './services.js';

export const IN_CLUSTER_BROKER_HOST = 'broker-ingress.knative-eventing.svc.cluster.local';
const PASSED_THROUGH = ['PATH', 'HOME', 'TZ', 'LANG', 'NODE_OPTIONS', 'LOG_LEVEL'] as const;

export interface EnvContext {
  podName: string;
  /** The local broker ingress base URL. */
  ingressUrl: string;
  /** The bearer token the local ingress requires: K_SINK_TOKEN of replicas whose K_SINK is rewritten to it. */
  ingressToken?: string;
  /** The activator's own base URL (its /status): LANDSCAPE_ACTIVATOR_URL, for the monitoring function. */
  activatorUrl?: string;
  configDir: string;
  kubeconfig: string;
  /** The landscape's own environment (PATH etc. are passed through). */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Reads a Secret or ConfigMap key from the main cluster; undefined when missing. */
  lookup(
    kind: 'secret' | 'configMap',
    namespace: string,
    name: string,
    key: string,
  ): Promise<string | undefined>;
}

/** A replica's environment is incomplete: a required Secret/ConfigMap key is missing. */
export class EnvError extends Error {
  override readonly name = 'EnvError';
}

/** Whether a K_SINK names the in-cluster broker ingress (and so becomes the local one). */
export function isInClusterSink(value: string): boolean {
  try {
    return new URL(value).hostname === IN_CLUSTER_BROKER_HOST;
  } catch {
    return false;
  }
}

/** K_SINK pointing at the in-cluster broker ingress → the local ingress, same path. */
export function localSink(value: string, ingressUrl: string): string {
  if (!isInClusterSink(value)) return value;
  return new URL(new URL(value).pathname, ingressUrl).toString();
}

/** K_SINK_TOKEN: the local ingress's token, only when K_SINK was rewritten to the local ingress. */
function sinkToken(service: FunctionService, ctx: EnvContext): Record<string, string> {
  if (!ctx.ingressToken) return {};
  const rewritten = service.env.some(
    (e) => e.name === 'K_SINK' && e.from.kind === 'value' && isInClusterSink(e.from.value),
  );
  return rewritten ? { K_SINK_TOKEN: ctx.ingressToken } : {};
}

/** CONFIG_FILE inside the config mount → the embedded landscape's file for the function. */
export function localConfigFile(value: string, service: FunctionService, configDir: string): string {
  const mount = service.configMountPath?.replace(/\/+$/, '');
  if (mount === undefined || !value.startsWith(`${mount}/`)) return value;
  return join(configDir, `${service.name}.yaml`);
}

/** The downward API fields a replica can be given. */
function fieldValue(fieldPath: string, service: FunctionService, podName: string): string | undefined {
  const fields: Record<string, string> = {
    'metadata.name': podName,
    'metadata.namespace': service.namespace,
    'spec.serviceAccountName': service.serviceAccountName ?? 'default',
    'status.podIP': '127.0.0.1',
  };
  return fields[fieldPath];
}

async function valueOf(
  name: string,
  from: EnvSource,
  service: FunctionService,
  ctx: EnvContext,
): Promise<string | undefined> {
  switch (from.kind) {
    case 'value':
      if (name === 'K_SINK') return localSink(from.value, ctx.ingressUrl);
      if (name === 'CONFIG_FILE') return localConfigFile(from.value, service, ctx.configDir);
      return from.value;
    case 'field':
      return fieldValue(from.fieldPath, service, ctx.podName);
    default: {
      const v = await ctx.lookup(from.kind, service.namespace, from.name, from.key);
      if (v === undefined && !from.optional)
        throw new EnvError(
          `${name}: ${from.kind} ${service.namespace}/${from.name} has no key "${from.key}"`,
        );
      return v;
    }
  }
}

export async function replicaEnv(service: FunctionService, ctx: EnvContext): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const key of PASSED_THROUGH) {
    const v = ctx.hostEnv[key];
    if (v !== undefined) env[key] = v;
  }
  Object.assign(env, {
    K_SERVICE: service.name,
    K_REVISION: service.revision,
    K_CONFIGURATION: service.name,
    FUNCTION_TARGET: service.name,
    KUBECONFIG: ctx.kubeconfig,
    NODE_ENV: 'production',
    POD_NAME: ctx.podName,
    POD_NAMESPACE: service.namespace,
    ...(ctx.activatorUrl ? { LANDSCAPE_ACTIVATOR_URL: ctx.activatorUrl } : {}),
  });
  for (const e of service.env) {
    const v = await valueOf(e.name, e.from, service, ctx);
    if (v !== undefined) env[e.name] = v;
  }
  // after the Service's own entries: a K_SINK_TOKEN of its own would not open the local ingress
  Object.assign(env, sinkToken(service, ctx));
  return env;
}
