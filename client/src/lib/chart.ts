/** A "nice" upper bound for an axis (1, 2, 5 × 10^n) and evenly spaced ticks from 0. */
export function niceScale(maxValue: number, tickCount = 4): { max: number; ticks: number[] } {
  if (!(maxValue > 0)) return { max: 1, ticks: [0, 1] };
  const rough = maxValue / tickCount;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  const stepInt = Math.max(1, step);
  const max = Math.ceil(maxValue / stepInt) * stepInt;
  const ticks: number[] = [];
  for (let t = 0; t <= max + 1e-9; t += stepInt) ticks.push(Math.round(t * 1e6) / 1e6);
  return { max, ticks };
}

export interface StackedBar<K extends string> {
  label: string;
  segments: { key: K; value: number; y: number; height: number }[];
  total: number;
}

/** Pixel geometry of stacked bars (y grows downwards, bars stand on `height`). */
export function stackBars<K extends string>(
  rows: { label: string; values: Record<K, number> }[],
  keys: readonly K[],
  height: number,
  max: number,
): StackedBar<K>[] {
  return rows.map((row) => {
    let offset = 0;
    const segments = keys
      .filter((key) => row.values[key] > 0)
      .map((key) => {
        const value = row.values[key];
        const h = (value / max) * height;
        offset += h;
        return { key, value, y: height - offset, height: h };
      });
    return { label: row.label, segments, total: keys.reduce((sum, key) => sum + row.values[key], 0) };
  });
}
