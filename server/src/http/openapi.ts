import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { SchemaObject } from 'openapi3-ts/oas31';
import { appRouter } from '../routers/root';

export const PUBLIC_API_PREFIX = '/api/public';

const errorBody: SchemaObject = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'Stable error code, e.g. BAD_REQUEST, UNAUTHORIZED, NOT_FOUND.' },
    message: { type: 'string' },
    issues: { type: 'array', items: { type: 'object' }, description: 'Validation issues, when the input was invalid.' },
  },
};

/** The OpenAPI document partners use, generated from the same tRPC procedures that serve the API. */
export function buildOpenApiDocument(publicUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Data Deletion Request Service API',
    description:
      'Create and track requests to delete one subject\'s data from every system connected to a workspace. ' +
      'Authenticate every call with a Personal Access Token in the `X-API-Key` header. Errors have the body `{ code, message, issues? }`.',
    version: '1.0.0',
    baseUrl: new URL(PUBLIC_API_PREFIX, publicUrl).toString(),
    securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Personal Access Token (dds_pat_…)' } },
  });
  // The service is open source under Apache-2.0 (LICENSE); OpenAPI 3.1 names it by its SPDX identifier.
  document.info = { ...document.info, license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' } };
  // Every error response carries the one stable error body.
  document.components = { ...document.components, schemas: { ...document.components?.schemas, Error: errorBody } };
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, { responses?: Record<string, { content?: unknown; description?: string }> }>)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) >= 400) response.content = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
      }
    }
  }
  return document;
}
