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
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((key) => key !== 'servers')
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual([
      'DELETE /callback-endpoints/{endpointId}',
      'GET /callback-endpoints',
      'GET /callback-endpoints/{endpointId}/deliveries',
      'GET /deletion-requests/organization',
      'GET /deletion-requests/user/{userId}',
      'GET /deletion-requests/workspace/{workspaceId}',
      'GET /deletion-requests/{deletionRequestId}',
      'GET /deletion-requests/{deletionRequestId}/audit-trail',
      'GET /downloads/certificate-public-key.pem',
      'GET /downloads/certificates/{deletionRequestId}.json',
      'GET /downloads/certificates/{deletionRequestId}.pdf',
      'GET /downloads/requests.csv',
      'GET /downloads/requests/{deletionRequestId}/audit-trail.csv',
      'GET /manual-tasks',
      'PATCH /callback-endpoints/{endpointId}',
      'POST /callback-deliveries/{deliveryId}/resend',
      'POST /callback-endpoints',
      'POST /callback-endpoints/{endpointId}/rotate-secret',
      'POST /callback-endpoints/{endpointId}/test',
      'POST /deletion-requests',
      'POST /deletion-requests/bulk-cancel',
      'POST /deletion-requests/bulk-retry',
      'POST /deletion-requests/import',
      'POST /deletion-requests/{deletionRequestId}/cancel',
      'POST /deletion-requests/{deletionRequestId}/check-status',
      'POST /deletion-requests/{deletionRequestId}/confirm-receipt',
      'POST /deletion-requests/{deletionRequestId}/correct-receipt-confirmation',
      'POST /deletion-requests/{deletionRequestId}/extend-deadline',
      'POST /deletion-requests/{deletionRequestId}/integration-requests/{integrationRequestId}/cancel',
      'POST /deletion-requests/{deletionRequestId}/integration-requests/{integrationRequestId}/check-status',
      'POST /deletion-requests/{deletionRequestId}/integration-requests/{integrationRequestId}/retry',
      'POST /deletion-requests/{deletionRequestId}/retry',
      'POST /downloads/requests.csv',
      'POST /erasure-checks',
      'POST /erasure-checks/batch',
      'POST /integrations/{integrationId}/rotate-hash-key',
      'POST /manual-tasks/{id}/answer',
    ]);
    expect(document.servers?.[0]?.url).toBe('http://localhost:3000/api/public');
    expect(buildOpenApiDocument().servers?.[0]?.url).toBe('/api/public');
    // Downloads are served under /api/downloads: their path items name that server.
    expect((document.paths as any)['/downloads/requests.csv'].servers).toEqual([{ url: 'http://localhost:3000/api' }]);
    expect(
      (document.paths as any)['/downloads/certificates/{deletionRequestId}.json'].get.responses['200'].content[
        'application/json'
      ].schema,
    ).toEqual({ $ref: '#/components/schemas/Certificate' });
  });

  it('documents create as 201 (200 for onDuplicate return_existing) and every status with its own description and an example body', () => {
    const create = (document.paths as any)['/deletion-requests'].post;
    expect(create.responses['200'].description).toMatch(/return_existing/);
    expect(create.responses['200'].content).toEqual(create.responses['201'].content);
    expect(Object.keys(create.responses).sort()).toEqual([
      '200',
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
    ]);
    const descriptions = new Map<string, Set<string>>();
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      const { servers: _servers, ...operations } = item as Record<string, any>;
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          expect(response.description, `${path} ${status}`).toBeTruthy();
          if (Number(status) >= 400) {
            expect(response.content['application/json'].example.code).toMatch(/^[A-Z_]+$/);
            if (!descriptions.has(status)) descriptions.set(status, new Set());
            descriptions.get(status)!.add(response.description);
          }
        }
      }
    }
    // 404s say what was not found, per path: not one description copied everywhere.
    expect(descriptions.get('404')!.size).toBeGreaterThan(2);
    const listOrg = (document.paths as any)['/deletion-requests/organization'].get;
    expect(listOrg.responses['400'].description).not.toMatch(/body/);
    expect(listOrg.responses['404'].description).not.toBe(create.responses['404'].description);
  });

  it('documents the X-API-Key scheme, operation ids, tags and error bodies', () => {
    expect(document.components?.securitySchemes?.ApiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    for (const item of Object.values(document.paths ?? {})) {
      const { servers: _servers, ...operations } = item as Record<string, any>;
      for (const operation of Object.values(operations)) {
        expect(operation.operationId).toBeTruthy();
        expect(document.tags?.map((t) => t.name)).toContain(operation.tags[0]);
        expect(operation.security).toEqual([{ ApiKey: [] }]);
        expect(operation.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      }
    }
    const create = (document.paths as any)['/deletion-requests'].post;
    expect(
      Object.keys(
        create.requestBody.content['application/json'].schema.properties ??
          create.requestBody.content['application/json'].schema,
      ),
    ).toBeTruthy();
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    // Every POST that changes a request takes an Idempotency-Key and documents its conflicting replay (422) and
    // in-progress (409) answers. Erasure checks change nothing (they are POSTs to keep identifiers out of URLs).
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      const post = (item as Record<string, any>).post;
      if (!post || !path.startsWith('/deletion-requests')) continue;
      expect(
        post.parameters.map((p: { name: string }) => p.name),
        path,
      ).toContain('Idempotency-Key');
      expect(Object.keys(post.responses), path).toEqual(expect.arrayContaining(['409', '422']));
    }
    const retry = (document.paths as any)['/deletion-requests/{deletionRequestId}/retry'].post;
    expect(retry.requestBody.content['application/json'].schema.properties.configuration.enum).toEqual([
      'submitted',
      'current',
    ]);
    const userList = (document.paths as any)['/deletion-requests/user/{userId}'].get;
    expect(userList.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining([
        'userId',
        'fetchIntegrationRequests',
        'fetchHashed',
        'limit',
        'cursor',
        'X-Workspace-Api-Key',
      ]),
    );
  });
});

describe('checked-in OpenAPI document and partner client types', () => {
  it('match what the procedures generate (run `npm run openapi:generate` after changing a public procedure or schema)', async () => {
    const { stalePartnerClientFiles } = await import('./partner-client-files');
    expect(await stalePartnerClientFiles()).toEqual([]);
  });
});
