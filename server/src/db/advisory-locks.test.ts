import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADVISORY_LOCKS } from './advisory-locks';

const SERVER_SRC = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('advisory locks', () => {
  it('gives every job its own key', () => {
    const keys = Object.values(ADVISORY_LOCKS);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is the only place a key is written: no lock is taken on a literal number', () => {
    const literal = /pg_(?:try_)?advisory_(?:xact_)?(?:un)?lock\(\s*\d/;
    const offenders = sources(SERVER_SRC).filter((file) => literal.test(fs.readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
