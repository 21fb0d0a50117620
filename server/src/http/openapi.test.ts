import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi';

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument('http://localhost:3000');

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists exactly the public paths of the interface', () => {
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual([
      'GET /deletion-requests/organization',
      'GET /deletion-requests/user/{userId}',
      'GET /deletion-requests/workspace/{workspaceId}',
      'POST /deletion-requests',
      'POST /deletion-requests/{deletionRequestId}/extend-deadline',
    ]);
    expect(document.servers?.[0]?.url).toBe('http://localhost:3000/api/public');
  });

  it('documents the X-API-Key scheme, operation ids, tags and error bodies', () => {
    expect(document.components?.securitySchemes?.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    for (const item of Object.values(document.paths ?? {})) {
      for (const operation of Object.values(item as Record<string, any>)) {
        expect(operation.operationId).toBeTruthy();
        expect(operation.tags).toEqual(['Deletion requests']);
        expect(operation.security).toEqual([{ ApiKey: [] }]);
        expect(operation.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      }
    }
    const create = (document.paths as any)['/deletion-requests'].post;
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties ?? create.requestBody.content['application/json'].schema)).toBeTruthy();
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    const userList = (document.paths as any)['/deletion-requests/user/{userId}'].get;
    expect(userList.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['userId', 'fetchIntegrationRequests', 'fetchHashed', 'limit', 'cursor', 'X-Workspace-Api-Key']),
    );
  });
});
