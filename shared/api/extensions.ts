/**
 * extensions.gardener.cloud/v1alpha1: Cluster — cluster-scoped, named after the shoot's namespace
 * in the seed; `spec.shoot` holds the Shoot (specs/dependency-watchdog.md).
 */
import type { CloudProfile, Seed, Shoot } from './core.js';
import type { TypedObject } from '@landscape/apimachinery';

export const EXTENSIONS_GROUP = 'extensions.gardener.cloud';
export const EXTENSIONS_VERSION = 'v1alpha1';
export const EXTENSIONS_API_VERSION = 'extensions.gardener.cloud/v1alpha1';

/** Raw extensions: whole Gardener objects as gardenlet writes them. */
export interface ClusterSpec {
  cloudProfile: CloudProfile;
  seed?: Seed;
  shoot: Shoot;
}

export interface Cluster extends TypedObject<ClusterSpec, Record<string, unknown>> {
  apiVersion?: typeof EXTENSIONS_API_VERSION;
  kind?: 'Cluster';
}
