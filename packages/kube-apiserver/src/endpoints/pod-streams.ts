/**
 * The Pod subresources a kubelet serves — `log`, `exec`, `attach`, `portforward`, `proxy` (kubectl
 * logs, exec, cp, attach, port-forward) — refused with a clear Status: the embedded landscape
 * simulates Pods and runs no containers, so there is nothing to stream. The answer is a 400
 * BadRequest naming the pod, the code kube-apiserver itself answers when a pod cannot be streamed
 * from (pkg/registry/core/pod/strategy.go, streamLocation/LogLocation: "pod %s does not have a
 * host assigned", "container %s is not valid for pod %s"); a 400 is final, so kubectl neither
 * retries nor hides the message. A missing pod is a 404 first, as upstream
 * (pkg/registry/core/pod/rest/log.go and subresources.go get the pod before they connect).
 */
import { badRequest } from '../api/errors.js';
import type { Operations } from '../registry/operations.js';
import type { ResourceRequest } from './request.js';

/** The kubelet-served subresources and what kubectl calls them. */
const STREAMS: Record<string, string> = {
  log: 'logs',
  exec: 'exec (and cp)',
  attach: 'attach',
  portforward: 'port-forward',
  proxy: 'proxy',
};

export function isPodStream(target: ResourceRequest): boolean {
  return (
    target.def.kind === 'Pod' &&
    !target.def.group &&
    target.name !== undefined &&
    target.subresource !== undefined &&
    target.subresource in STREAMS
  );
}

/** Throws the 404 of a missing pod, else the 400 that says why nothing can be streamed. */
export function refusePodStream(ops: Operations, target: ResourceRequest): never {
  ops.get({ def: target.def, namespace: target.namespace, name: target.name });
  const sub = target.subresource!;
  throw badRequest(
    `pod "${target.name}" runs no containers: the embedded landscape simulates pods without a kubelet, ` +
      `so pods/${sub} (kubectl ${STREAMS[sub]}) cannot be served`,
  );
}
