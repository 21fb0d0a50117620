import { createTokenInputSchema, signUpInputSchema } from '@shared/schemas/auth';
import { describe, expect, it } from 'vitest';
import { validateForm } from './form';

describe('validateForm with the server schemas', () => {
  it('names each invalid field with the schema message', () => {
    const result = validateForm(signUpInputSchema, {
      email: 'nope',
      password: 'short',
      name: ' ',
      organizationName: 'Acme',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.email).toBe('Enter a valid email address');
    expect(result.errors.password).toBe('Use at least 10 characters');
    expect(result.errors.name).toBe('Required');
    expect(result.errors.organizationName).toBeUndefined();
  });

  it('returns the parsed (trimmed, lower-cased) values when valid', () => {
    const result = validateForm(signUpInputSchema, {
      email: ' Jane@Example.com ',
      password: 'a long enough passphrase',
      name: ' Jane ',
      organizationName: 'Acme',
    });
    expect(result).toEqual({
      ok: true,
      data: { email: 'jane@example.com', password: 'a long enough passphrase', name: 'Jane', organizationName: 'Acme' },
    });
  });

  it('accepts a token without expiry and refuses a zero-day one', () => {
    expect(validateForm(createTokenInputSchema, { name: 'CI' }).ok).toBe(true);
    expect(validateForm(createTokenInputSchema, { name: 'CI', expiresInDays: 0 }).ok).toBe(false);
  });
});

describe('messages for people', () => {
  it("never shows zod's default texts, and keeps the schema's own messages", async () => {
    const { z } = await import('zod');
    const schema = z.object({
      days: z.number().int().min(0),
      headers: z.record(z.string().regex(/^[A-Za-z-]+$/), z.string()),
      name: z.string().min(1, 'Enter a name'),
    });
    const result = validateForm(schema, { days: Number.NaN, headers: { 'bad name': 'x' }, name: '' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.days).toBe('Enter a number');
    expect(result.errors.name).toBe('Enter a name');
    expect(Object.values(result.errors).join(' ')).not.toMatch(/Invalid input|expected|received|in record/);
  });
});

describe('record keys', () => {
  it("puts a refused header name under the name, with the schema's own message", async () => {
    const { webhookConfigSchema } = await import('@shared/integrations/webhook');
    const { recordKeyField } = await import('./form');
    const result = validateForm(webhookConfigSchema, {
      initiate: { url: 'https://crm.example/erase', headers: { 'bad name': 'x' } },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[`initiate.headers.${recordKeyField('bad name')}`]).toBe('Not a valid header name');
    expect(result.errors['initiate.headers.bad name']).toBeUndefined();
  });
});
