import { expect, it } from 'vitest';
import { storableJson, storableText } from './storable';

it('replaces U+0000 and lone surrogates in every string of a value, and leaves whole pairs', () => {
  const value = {
    nul: 'a\u0000b',
    high: 'cut \uD83D',
    low: '\uDE00 cut',
    pair: 'whole \uD83D\uDE00',
    nested: [{ deep: ['x\u0000'] }],
    when: new Date(Date.UTC(2026, 10, 30)),
  };
  expect(JSON.parse(storableJson(value))).toEqual({
    nul: 'a\uFFFDb',
    high: 'cut \uFFFD',
    low: '\uFFFD cut',
    pair: 'whole \uD83D\uDE00',
    nested: [{ deep: ['x\uFFFD'] }],
    when: '2026-11-30T00:00:00.000Z',
  });
  expect(storableText('\u0000\uDBFF')).toBe('\uFFFD\uFFFD');
});

it('leaves text that only looks like an escape as it is', () => {
  // A backslash followed by "u0000" is six characters, not U+0000.
  const value = { path: 'C:\\u0000\\ud83d', plain: 'nothing to replace' };
  expect(storableJson(value)).toBe(JSON.stringify(value));
});
