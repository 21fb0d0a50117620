import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** The CLI as an operator's script runs it: no database is reached for these. */
const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'server/src/cli/index.ts', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });

describe('CLI exit codes', () => {
  it('64 with the usage for an unknown option or command, or none; 0 for help', () => {
    const unknownOption = cli(['users:list', '--bogus']);
    expect(unknownOption.status).toBe(64);
    expect(unknownOption.stderr).toContain('Usage: npm run cli');
    expect(cli(['no:such-command']).status).toBe(64);
    expect(cli([]).status).toBe(64);
    expect(cli(['help']).status).toBe(0);
  });

  it('78 for a configuration the service would refuse', () => {
    const bad = cli(['users:list'], { DATABASE_URL: 'postgresql://x@127.0.0.1:1/x', ENCRYPTION_KEY: 'short' });
    expect(bad.status).toBe(78);
    expect(bad.stderr).toContain('ENCRYPTION_KEY must encode exactly 32 bytes');
  });
});
