import { expect, it } from 'vitest';
import { newId } from './ids';

it('gives prefixed ids of 20 characters of the alphabet, none twice across many refills of the pool', () => {
  const ids = Array.from({ length: 5_000 }, () => newId('dr'));
  for (const id of ids) expect(id).toMatch(/^dr_[0-9a-hjkmnp-tv-z]{20}$/);
  expect(new Set(ids).size).toBe(ids.length);
  // No id shares its random part with the one before it (a pool handed out twice would).
  const tails = ids.map((id) => id.slice(3));
  expect(tails.some((tail, i) => i > 0 && tail === tails[i - 1])).toBe(false);
});
