import { expect } from 'vitest';
import { contractFetch } from './openapi-contract';

/** REST calls against the running app; every response is checked against the OpenAPI document. */
export function restClient(baseUrl: string) {
  const api = contractFetch(baseUrl);
  return {
    post(path: string, body: unknown, headers: Record<string, string> = {}) {
      return api(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    get(path: string, headers: Record<string, string> = {}) {
      return api(path, { headers });
    },
    request: api,
  };
}

/** The one error shape, with no stack trace; returns the body. */
export async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  const body = await response.json();
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  expect(Object.keys(body).every((k) => ['code', 'message', 'issues'].includes(k))).toBe(true);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
  return body as { code: string; message: string; issues?: unknown[] };
}
