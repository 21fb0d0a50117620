import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger('info', stream), lines };
}

describe('the logger', () => {
  it("writes an error's kind, message, code and stack, never the fields a library adds (PostgreSQL's detail quotes row values)", () => {
    const { log, lines } = capture();
    // As pg raises it when a deferred foreign key fails at COMMIT.
    const error = Object.assign(new Error('update or delete on table "users" violates foreign key constraint'), {
      code: '23503',
      detail: 'Key (email)=(jane@example.com) is still referenced from table "orders".',
      where: 'SQL statement "DELETE FROM users WHERE email = \'jane@example.com\'"',
    });
    log.error({ err: new Error('the step failed', { cause: error }) }, 'integration request step failed');
    const line = JSON.parse(lines.join('')) as { err: Record<string, unknown> };
    expect(line.err).toMatchObject({
      type: 'Error',
      message: 'the step failed',
      cause: { type: 'Error', code: '23503', message: error.message },
    });
    expect(line.err.stack).toContain('the step failed');
    expect(lines.join('')).not.toContain('jane@example.com');
  });

  it('leaves a value that is not an error as it is', () => {
    const { log, lines } = capture();
    log.warn({ err: 'connection refused' }, 'postponed');
    expect(JSON.parse(lines.join('')).err).toBe('connection refused');
  });
});
