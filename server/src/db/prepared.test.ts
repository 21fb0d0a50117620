import { afterEach, describe, expect, it } from 'vitest';
import { prepared, usePreparedStatements } from './client';

afterEach(() => usePreparedStatements(true));

describe('prepared hot statements', () => {
  it('gives each statement text one stable name, and different texts different names', () => {
    const a = prepared('SELECT 1 WHERE $1::int = 1', [1]);
    const again = prepared('SELECT 1 WHERE $1::int = 1', [2]);
    const b = prepared('SELECT 2 WHERE $1::int = 1', [1]);
    expect(a.name).toMatch(/^dds_[0-9a-f]{20}$/);
    expect(again).toEqual({ name: a.name, text: 'SELECT 1 WHERE $1::int = 1', values: [2] });
    expect(b.name).not.toBe(a.name);
  });

  it('sends statements unnamed when DB_PREPARED_STATEMENTS is off', () => {
    usePreparedStatements(false);
    expect(prepared('SELECT 3', [])).toEqual({ text: 'SELECT 3', values: [] });
  });
});
