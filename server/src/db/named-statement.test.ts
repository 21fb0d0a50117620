import { describe, expect, it } from 'vitest';
import { namedStatement } from './named-statement';

describe('namedStatement', () => {
  it('numbers the parameters in the order they are listed, each name one position however often it is used', () => {
    const statement = namedStatement<{ a: number; b: string }>('SELECT $b::text, $a::int, $b || $b, 1::int', {
      a: (input) => input.a,
      b: (input) => input.b,
    });
    expect(statement.text).toBe('SELECT $2::text, $1::int, $2 || $2, 1::int');
    expect(statement.values({ a: 7, b: 'x' })).toEqual([7, 'x']);
  });

  it('refuses a name without a value, and a value the statement never uses, when it is built', () => {
    expect(() => namedStatement('SELECT $missing', {})).toThrow(/\$missing/);
    expect(() => namedStatement('SELECT 1', { extra: () => 1 })).toThrow(/extra/);
  });
});
