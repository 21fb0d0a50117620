import { describe, expect, it } from 'vitest';
import { niceScale, stackBars } from './chart';

describe('niceScale', () => {
  it('rounds the axis up to a readable step', () => {
    expect(niceScale(7)).toEqual({ max: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceScale(130).max).toBe(150);
    expect(niceScale(0)).toEqual({ max: 1, ticks: [0, 1] });
    expect(niceScale(1).ticks).toEqual([0, 1]);
  });
});

describe('stackBars', () => {
  it('stacks non-zero values from the baseline up', () => {
    const [bar] = stackBars([{ label: 'd1', values: { a: 2, b: 0, c: 1 } }], ['a', 'b', 'c'] as const, 100, 4);
    expect(bar?.total).toBe(3);
    expect(bar?.segments).toEqual([
      { key: 'a', value: 2, y: 50, height: 50 },
      { key: 'c', value: 1, y: 25, height: 25 },
    ]);
  });
});
