/**
 * The pure part of bench/ab.ts: the figures of one `bench apiserver` output, medians, and a
 * two-sided exact permutation test (Mann–Whitney U) of two trees' rounds.
 */
/** One run's figures by name (raw keep-alive side). */
export type Figures = Record<string, number>;

const THROUGHPUT_ROWS: Record<string, string> = {
  'creates/s': 'creates/s',
  'gets/s': 'gets/s',
  'updates/s': 'updates/s',
  'list of all': 'list ms',
  'watch events/s': 'watch events/s',
  'deletes/s': 'deletes/s',
};

const num = (text: string): number => Number(text.trim().replace(/,/g, '').replace(/\s*%$/, ''));

/** The figures of one `bench apiserver` output: the raw column of the results, server CPU per phase. */
export function parseRun(output: string): Figures {
  const out: Figures = {};
  for (const line of output.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 8) continue;
    const [, name] = cells;
    const row = Object.keys(THROUGHPUT_ROWS).find((prefix) => name.startsWith(prefix));
    if (row) out[THROUGHPUT_ROWS[row]] = num(cells[3]);
    // phase | cn wall | cn server % | cn client % | raw wall | raw server % | raw client %
    if (/^(create|get|update|list|watch|delete)$/.test(name) && cells[6].endsWith('%'))
      out[`server CPU ms, ${name}`] = Math.round((num(cells[5]) * num(cells[6])) / 100);
  }
  return out;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Mann–Whitney U of b over a: pairs where b's value is higher (ties count half). */
function uStat(a: readonly number[], b: readonly number[]): number {
  let u = 0;
  for (const x of a) for (const y of b) u += y > x ? 1 : y === x ? 0.5 : 0;
  return u;
}

/** Two-sided exact permutation p of U over every split of the pooled rounds (small samples only). */
export function permutationP(a: readonly number[], b: readonly number[]): number {
  const pooled = [...a, ...b];
  const n = a.length;
  const centre = (a.length * b.length) / 2;
  const observed = Math.abs(uStat(a, b) - centre);
  let hits = 0;
  let total = 0;
  const pick: number[] = [];
  const walk = (from: number): void => {
    if (pick.length === n) {
      const chosen = new Set(pick);
      const A = pick.map((i) => pooled[i]);
      const B = pooled.filter((_, i) => !chosen.has(i));
      total++;
      if (Math.abs(uStat(A, B) - centre) >= observed - 1e-9) hits++;
      return;
    }
    for (let i = from; i <= pooled.length - (n - pick.length); i++) {
      pick.push(i);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return hits / total;
}
