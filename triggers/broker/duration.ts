/**
 * ISO-8601 durations (`PT0.5S`, `PT1M`, `P1D`) to milliseconds, as Knative parses DeliverySpec
 * durations (rickb777/date period): fractions allowed on any field, a year is 365.2425 days and
 * a month 30.436875 days when converted to a duration.
 */
const PATTERN =
  /^P(?!$)(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?=\d)(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;

const DAY = 86_400_000;
/** Milliseconds per unit, in the order of the pattern's groups. */
const UNITS = [365.2425 * DAY, 30.436875 * DAY, 7 * DAY, DAY, 3_600_000, 60_000, 1000] as const;

export class DurationError extends Error {
  override readonly name = 'DurationError';
}

/** Milliseconds of an ISO-8601 duration; throws `DurationError` for anything else. */
export function parseIsoDuration(text: string): number {
  const match = PATTERN.exec(text.trim().toUpperCase());
  if (!match) throw new DurationError(`"${text}" is not an ISO-8601 duration (e.g. PT0.5S, PT1M)`);
  let ms = 0;
  UNITS.forEach((unit, i) => {
    const group = match[i + 1];
    if (group !== undefined) ms += Number(group.replace(',', '.')) * unit;
  });
  return Math.round(ms);
}

export function isIsoDuration(text: string): boolean {
  return PATTERN.test(text.trim().toUpperCase());
}
