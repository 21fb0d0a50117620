import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJsonPath } from './json-path';
import { renderHeader, renderJsonBody, renderUrl, TemplateError } from './templating';
import { parseRetryAfter } from './http-client';
import { createRedactor } from './redaction';
import { webhookConfigSchema } from '@shared/integrations';

describe('webhook templating', () => {
  it('URL-encodes values in URLs so an identifier cannot change the path or query', () => {
    expect(
      renderUrl('https://crm.example/users/{{identifier}}?by={{ identifier }}', { identifier: 'a/b?c=d&e#f' }),
    ).toBe('https://crm.example/users/a%2Fb%3Fc%3Dd%26e%23f?by=a%2Fb%3Fc%3Dd%26e%23f');
  });

  it('refuses a value that would be resolved away as a "." or ".." path segment', () => {
    for (const identifier of ['.', '..'])
      expect(() => renderUrl('https://crm.example/tenants/42/users/{{identifier}}', { identifier })).toThrow(
        TemplateError,
      );
    expect(renderUrl('https://crm.example/users/{{identifier}}', { identifier: '...' })).toBe(
      'https://crm.example/users/...',
    );
  });

  it('refuses header values outside ASCII, which would go out as other bytes or not at all', () => {
    for (const identifier of ['josé@example.com', '李雷@example.cn', 'x\u{1F600}'])
      expect(() => renderHeader('{{identifier}}', { identifier })).toThrow(/outside ASCII/);
    expect(renderHeader('Subject {{identifier}}', { identifier: 'jose@example.com' })).toBe('Subject jose@example.com');
  });

  it('JSON-escapes values in bodies, for any string', () => {
    fc.assert(
      fc.property(fc.string(), (identifier) => {
        const body = renderJsonBody('{"email": "{{identifier}}", "fixed": 1}', { identifier });
        expect(JSON.parse(body)).toEqual({ email: identifier, fixed: 1 });
      }),
    );
  });

  it('refuses line breaks in header values (no header injection)', () => {
    expect(() => renderHeader('Bearer {{token}}', { token: 'x\r\nX-Evil: 1' })).toThrow(TemplateError);
    // An unpaired surrogate cannot be URL-encoded: a clear template error, not a URIError.
    expect(() => renderUrl('https://example.com/u/{{identifier}}', { identifier: 'x\ud800' })).toThrow(TemplateError);
    expect(renderHeader('Bearer {{token}}', { token: 'abc' })).toBe('Bearer abc');
  });

  it('takes a status or cancel body only as JSON with its placeholders inside strings, as the initiate body', () => {
    const config = (call: 'status' | 'cancel', body: string) => ({
      mode: 'async',
      initiate: { url: 'https://crm.example/erase', trackingIdPath: '$.id' },
      status: { url: 'https://crm.example/jobs/{{trackingId}}', statusPath: '$.state' },
      [call]: { url: 'https://crm.example/jobs/{{trackingId}}', statusPath: '$.state', body },
    });
    for (const call of ['status', 'cancel'] as const) {
      const bare = webhookConfigSchema.safeParse(config(call, '{"ids": [{{identifier}}]}'));
      expect(bare.success).toBe(false);
      expect(bare.error?.issues).toContainEqual(
        expect.objectContaining({ path: [call, 'body'], message: 'Body must be JSON' }),
      );
      expect(webhookConfigSchema.safeParse(config(call, '{"ids": ["{{identifier}}"]}')).success).toBe(true);
    }
  });

  it('names an unknown placeholder', () => {
    expect(() => renderUrl('https://x.example/{{nope}}', {})).toThrow('Unknown placeholder {{nope}}');
  });

  it('refuses non-http URLs after rendering', () => {
    expect(() => renderUrl('{{u}}', { u: 'file:///etc/passwd' })).toThrow();
  });
});

describe('JSONPath subset', () => {
  const doc = { data: { jobs: [{ id: 7 }], 'job-id': 'x' } };
  it.each([
    ['$.data.jobs[0].id', 7],
    ["$.data['job-id']", 'x'],
    ['$.data.missing', undefined],
    ['$.data.jobs[3].id', undefined],
  ])('%s', (path, expected) => expect(readJsonPath(doc, path)).toBe(expected));
  it('rejects what it does not support', () => expect(() => readJsonPath(doc, '$..id')).toThrow());
});

describe('audit redaction and Retry-After', () => {
  it('removes secrets, also URL- and base64-encoded', () => {
    const redact = createRedactor(['s3cr3t-value']);
    expect(
      redact(
        `a s3cr3t-value b ${encodeURIComponent('s3cr3t-value')} ${Buffer.from('s3cr3t-value').toString('base64')}`,
      ),
    ).toBe('a [redacted] b [redacted] [redacted]');
  });
  it('removes a secret shorter than 4 characters where it stands alone, and takes any secret without throwing', () => {
    const redact = createRedactor(['907', 'ab', 'lone \ud800 surrogate']);
    expect(redact('{"pin":"907","code":"9070","region":"ab","word":"abc"}')).toBe(
      '{"pin":"[redacted]","code":"9070","region":"[redacted]","word":"abc"}',
    );
    expect(redact('x lone \ud800 surrogate y')).toBe('x [redacted] y');
  });
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
