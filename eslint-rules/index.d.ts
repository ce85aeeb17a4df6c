/** Types of eslint-rules/index.js (the house's import rules), for its tests. */
import type { ESLint } from 'eslint';

export function resolveSpecifier(fromAbs: string, spec: string): string | undefined;
export function unitOf(path: string): string;
export function layerViolation(from: string, to: string): string | undefined;
export function cycleThrough(
  start: string,
  first: string,
  graph?: Map<string, Set<string>>,
): string[] | undefined;
declare const plugin: ESLint.Plugin;
export default plugin;
