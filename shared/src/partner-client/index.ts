import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

export interface PartnerClientOptions {
  /** The service's URL, e.g. https://deletions.example.org (the public API lives under /api/public). */
  baseUrl: string;
  /** A personal access token (dds_pat_…), sent as X-API-Key. */
  token: string;
  fetch?: typeof globalThis.fetch;
}

/**
 * A typed client for the public REST API, generated from its OpenAPI document
 * (openapi-typescript types in ./schema.ts, calls through openapi-fetch). Paths, bodies,
 * parameters and responses are checked by the compiler:
 *
 *   const api = createPartnerClient({ baseUrl, token });
 *   const { data, error } = await api.POST('/deletion-requests', { body: { workspaceApiKey, identifier } });
 */
export function createPartnerClient(options: PartnerClientOptions): Client<paths> {
  return createClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/api/public`,
    headers: { 'X-API-Key': options.token },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
