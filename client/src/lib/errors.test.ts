import { describe, expect, it } from 'vitest';
import { issuesToFieldErrors, toDisplayError } from './errors';

describe('issuesToFieldErrors', () => {
  it('keeps the first message per field and strips a wrapping key', () => {
    const issues = [
      { path: ['filter', 'createdTo'], message: 'The end date must not be before the start date' },
      { path: ['filter', 'createdTo'], message: 'second' },
      { path: [], message: 'whole form' },
      { nonsense: true },
    ];
    expect(issuesToFieldErrors(issues, 'filter')).toEqual({
      createdTo: 'The end date must not be before the start date',
      _form: 'whole form',
    });
  });
});

describe('toDisplayError', () => {
  it('keeps the message of a plain error', () => {
    expect(toDisplayError(new Error('boom'))).toEqual({ code: 'UNKNOWN', message: 'boom', fieldErrors: {} });
  });
});

describe('a call made without the tRPC client', () => {
  it("shows the server's code, message and field issues like a tRPC client error", async () => {
    const { ProcedureCallError } = await import('./errors');
    const error = new ProcedureCallError('BAD_REQUEST', 'Input validation failed', [
      { path: ['email'], message: 'Enter a valid email address' },
    ]);
    expect(toDisplayError(error)).toEqual({
      code: 'BAD_REQUEST',
      message: 'Input validation failed',
      fieldErrors: { email: 'Enter a valid email address' },
    });
  });
});
