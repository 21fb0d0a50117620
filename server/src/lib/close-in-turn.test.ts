import { describe, expect, it } from 'vitest';
import { closeInTurn } from './close-in-turn';
import type { Logger } from './logger';

function recordingLog() {
  const lines: { level: string; message: string }[] = [];
  const at =
    (level: string) =>
    (_fields: unknown, message: string): void => {
      lines.push({ level, message });
    };
  return { lines, log: { warn: at('warn'), error: at('error') } as unknown as Logger };
}

describe('closing in turn at shutdown', () => {
  it('goes on past a close that hangs or fails, so the last step (the embedded server) still runs', async () => {
    const { lines, log } = recordingLog();
    const closed: string[] = [];
    const started = Date.now();
    const late = await closeInTurn(
      [
        { what: 'connections to customer data stores', close: () => new Promise(() => {}) },
        {
          what: 'the metrics server',
          close: () => Promise.reject(new Error('already closed')),
        },
        { what: 'the service database', close: async () => void closed.push('database') },
        { what: 'the embedded PostgreSQL', close: async () => void closed.push('embedded') },
      ],
      50,
      log,
    );
    expect(late).toEqual(['connections to customer data stores']);
    expect(closed).toEqual(['database', 'embedded']);
    expect(lines).toEqual([
      { level: 'warn', message: 'connections to customer data stores did not close in time; going on without it' },
      { level: 'error', message: 'error closing the metrics server' },
    ]);
    // One wait for the one that hung, none for the others.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits for a close that takes a while within its time', async () => {
    const { lines, log } = recordingLog();
    let done = false;
    const late = await closeInTurn(
      [{ what: 'the service database', close: () => new Promise((r) => setTimeout(() => r((done = true)), 30)) }],
      1_000,
      log,
    );
    expect(late).toEqual([]);
    expect(done).toBe(true);
    expect(lines).toEqual([]);
  });
});
