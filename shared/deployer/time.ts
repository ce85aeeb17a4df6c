/**
 * Timeout settings of the deployer contract: a Go duration (see @landscape/apimachinery's
 * parseGoDuration) or the keyword `none`. Pure.
 */
import { parseGoDuration } from '@landscape/apimachinery';

/** A timeout setting: a duration in milliseconds, or `none` (switched off). */
export type TimeoutSetting = { ms: number } | 'none';

/**
 * A timeout as written in specs and configs: a Go duration or `none`; undefined or `''` gives
 * `fallback`. Throws DurationError for anything else.
 */
export function parseTimeout(value: string | undefined, fallback: TimeoutSetting): TimeoutSetting {
  if (value === undefined || value === '') return fallback;
  if (value === 'none') return 'none';
  return { ms: parseGoDuration(value) };
}
