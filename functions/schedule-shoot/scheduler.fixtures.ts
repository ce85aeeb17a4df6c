/**
 * Test fixtures for the scheduler tests, after upstream's reconciler_test.go bases: a visible, ready
 * seed `seed-1` of provider `foo` in region `europe`, and an unscheduled shoot `shoot` of the same
 * provider and region using cloud profile `cloudprofile-1`.
 */
import type { CloudProfile, Seed, Shoot } from '../../shared/api/core.js';
import type { ScheduleDecision, ScheduleInput } from './scheduler.js';

export const PROVIDER = 'foo';
export const REGION = 'europe';
export const CLOUD_PROFILE = 'cloudprofile-1';

export function seed(name = 'seed-1', patch: (s: Seed) => void = () => undefined): Seed {
  const s: Seed = {
    metadata: { name },
    spec: {
      provider: { type: PROVIDER, region: REGION },
      settings: { scheduling: { visible: true } },
    },
    status: {
      conditions: [{ type: 'GardenletReady', status: 'True' }],
      lastOperation: { type: 'Reconcile', state: 'Succeeded' },
    },
  };
  patch(s);
  return s;
}

export function shoot(patch: (s: Shoot) => void = () => undefined): Shoot {
  const s: Shoot = {
    metadata: { name: 'shoot', namespace: 'my-namespace' },
    spec: {
      cloudProfileName: CLOUD_PROFILE,
      region: REGION,
      provider: { type: PROVIDER, workers: [{ name: 'foo' }] },
    },
  };
  patch(s);
  return s;
}

export function cloudProfile(patch: (c: CloudProfile) => void = () => undefined): CloudProfile {
  const c: CloudProfile = { metadata: { name: CLOUD_PROFILE }, spec: { type: PROVIDER } };
  patch(c);
  return c;
}

export function input(patch: Partial<ScheduleInput> = {}): ScheduleInput {
  return { shoot: shoot(), seeds: [seed()], usage: {}, cloudProfile: cloudProfile(), ...patch };
}

/** The chosen seed's name, or the failure as `stage: message`. */
export function outcome(decision: ScheduleDecision): string {
  return decision.ok ? decision.seedName : `${decision.stage}: ${decision.message}`;
}
