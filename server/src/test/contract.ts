import { expect } from 'vitest';
import type { FakeCall } from './fakes/vendor-server';

/** What a vendor sees of one request, for comparing our connector's call with the SDK's. */
export interface RequestShape {
  method: string;
  path: string;
  query: [string, string][];
  /** The authorization scheme and credential ("Bearer x", "Basic x", or "header x-api-key: x"). */
  auth: string | undefined;
  body: unknown;
}

/** How a request authenticates: the Authorization header, or a named API-key header. */
export function authOf(call: FakeCall, keyHeaders: string[] = []): string | undefined {
  const header = call.headers.authorization;
  if (typeof header === 'string') return header;
  for (const name of keyHeaders) {
    const value = call.headers[name.toLowerCase()];
    if (typeof value === 'string') return `header ${name.toLowerCase()}: ${value}`;
  }
  return undefined;
}

function bodyOf(call: FakeCall): unknown {
  if (call.body === '') return undefined;
  const type = String(call.headers['content-type'] ?? '');
  if (type.includes('x-www-form-urlencoded')) return [...new URLSearchParams(call.body).entries()].sort();
  try {
    return JSON.parse(call.body);
  } catch {
    return call.body;
  }
}

export function shapeOf(call: FakeCall, keyHeaders: string[] = []): RequestShape {
  return {
    method: call.method,
    path: call.path,
    query: [...call.query.entries()].sort(([a], [b]) => a.localeCompare(b)),
    auth: authOf(call, keyHeaders),
    body: bodyOf(call),
  };
}

/**
 * The calls a fake received while `action` ran. Both our connector and the vendor's SDK are
 * driven against the same fake; their calls are compared with `expectSameRequests`.
 */
export async function callsDuring(fake: { calls: FakeCall[] }, action: () => Promise<unknown>): Promise<FakeCall[]> {
  const before = fake.calls.length;
  await action();
  return fake.calls.slice(before);
}

/** Our connector's request equals the SDK's on method, path, query, auth form and body. */
export function expectSameRequest(
  ours: FakeCall | undefined,
  sdk: FakeCall | undefined,
  keyHeaders: string[] = [],
): void {
  expect(ours, 'our connector made the call').toBeDefined();
  expect(sdk, 'the SDK made the call').toBeDefined();
  expect(shapeOf(ours!, keyHeaders)).toEqual(shapeOf(sdk!, keyHeaders));
}
