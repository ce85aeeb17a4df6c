/**
 * Test support of the strategy tests: a hand-made resource definition and the create, update and
 * status-update paths of the registry (prepare, then validate), answering the 422 message where a
 * rule refuses.
 */
import { StatusError } from '../api/errors.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import type { StrategyContext } from './rest-strategy.js';
import { strategyFor } from './strategies.js';

export function testDef(group: string, kind: string, status = false): ResourceDef {
  return { group, kind, subresources: status ? { status: true } : {} } as unknown as ResourceDef;
}

function refusal<T>(fn: () => T): T | string {
  try {
    return fn();
  } catch (err) {
    if (err instanceof StatusError && err.code === 422) return err.message;
    throw err;
  }
}

/** The object as created (prepareForCreate + validateCreate), or the 422 message. */
export function createVia(d: ResourceDef, obj: KubeObject, ctx?: StrategyContext): KubeObject | string {
  const s = strategyFor(d);
  return refusal(() => {
    const out = s.prepareForCreate(d, obj, ctx);
    s.validateCreate(d, out);
    return out;
  });
}

/** The object as updated (prepareForUpdate + validateUpdate), or the 422 message. */
export function updateVia(
  d: ResourceDef,
  prev: KubeObject,
  next: KubeObject,
  ctx?: StrategyContext,
): KubeObject | string {
  const s = strategyFor(d);
  return refusal(() => {
    const out = s.prepareForUpdate(d, prev, next, ctx);
    s.validateUpdate(d, prev, out);
    return out;
  });
}

/** The object as written through the status subresource (prepareForStatusUpdate + validateStatusUpdate), or the 422 message. */
export function statusUpdateVia(d: ResourceDef, prev: KubeObject, incoming: KubeObject): KubeObject | string {
  const s = strategyFor(d);
  return refusal(() => {
    const out = s.prepareForStatusUpdate(d, prev, incoming);
    s.validateStatusUpdate(d, prev, out);
    return out;
  });
}
