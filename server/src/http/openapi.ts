import { z } from 'zod';
import { identityLookupAnswerSchema, identityLookupRequestSchema } from '../identity-lookups/run-lookup';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { OperationObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { ERROR_HTTP_STATUS, type ErrorCode } from '@shared/errors';
import { appRouter } from '../routers/root';
import { openApiExtras, type BadRequestExample } from '../routers/rest-meta';
import { downloadPaths } from './openapi-downloads';

export const PUBLIC_API_PREFIX = '/api/public';

const errorBody: SchemaObject = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: {
    code: {
      type: 'string',
      description: 'Stable error code, e.g. BAD_REQUEST, UNAUTHORIZED, NOT_FOUND.',
      example: 'NOT_FOUND',
    },
    message: { type: 'string', example: 'Deletion request not found' },
    issues: { type: 'array', items: { type: 'object' }, description: 'Validation issues, when the input was invalid.' },
  },
};

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  (Object.entries(ERROR_HTTP_STATUS) as [ErrorCode, number][])
    .filter(([code]) => code !== 'PARSE_ERROR')
    .map(([code, status]) => [status, code]),
);

const TAGS = [
  {
    name: 'Deletion requests',
    description:
      'Create deletion requests, read them with their integration requests and audit trails, and act on them.',
  },
  {
    name: 'Erasure checks',
    description:
      'Ask whether a subject already has a deletion request, by identifier, without the identifier ever appearing in a URL.',
  },
  {
    name: 'Integrations',
    description: "The destinations a deletion request fans out to; here, their hash keys' rotation.",
  },
  {
    name: 'Callbacks',
    description: 'Endpoints that receive signed status events (Standard Webhooks), and their deliveries.',
  },
  {
    name: 'Manual tasks',
    description:
      'Tasks of manual integrations (systems without an API), for ticketing systems: the open ones, and their answers.',
  },
  {
    name: 'Downloads',
    description: 'Files: certificates of deletion (JSON, PDF), the key that signs them, and CSV exports.',
  },
];

/** An error response with its own description and an example body of the one error shape. */
function errorResponse(status: number, description: string, badRequest?: BadRequestExample): ResponseObject {
  const code = CODE_BY_STATUS.get(status) ?? 'INTERNAL_SERVER_ERROR';
  const example: Record<string, unknown> = { code, message: description.replace(/\.$/, '').replace(/`/g, '') };
  if (status === 400) {
    example.issues = [
      badRequest
        ? { code: 'invalid_format', ...badRequest }
        : { code: 'too_small', path: ['identifier'], message: 'identifier must not be empty' },
    ];
  }
  const response: ResponseObject = {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } },
  };
  if (status === 429) {
    response.headers = {
      'Retry-After': {
        description: 'Seconds to wait before the next attempt.',
        schema: { type: 'integer', minimum: 1 },
      },
    };
  }
  return response;
}

/**
 * The OpenAPI document partners use, generated from the same tRPC procedures that serve the
 * API. What trpc-to-openapi cannot express is applied from each procedure's `restMeta`: the
 * success status (201 for create) and every error status with its own description and an
 * example body. `publicUrl` undefined gives a relative server (the checked-in copy).
 */
export function buildOpenApiDocument(publicUrl?: string): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Data Deletion Request Service API',
    description:
      "Create and track requests to delete one subject's data from every system connected to a workspace. " +
      'Authenticate every call with a Personal Access Token in the `X-API-Key` header; a token limited to scopes answers 403 naming the missing scope. ' +
      'Errors have the body `{ code, message, issues? }`. Send `Idempotency-Key` on a POST to make retrying it safe.',
    version: '1.0.0',
    baseUrl: publicUrl ? new URL(PUBLIC_API_PREFIX, publicUrl).toString() : PUBLIC_API_PREFIX,
    securitySchemes: {
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Personal Access Token (dds_pat_…)' },
    },
  });
  document.info.license = { name: 'Apache-2.0', identifier: 'Apache-2.0' };
  const downloads = downloadPaths(publicUrl, errorResponse);
  document.tags = TAGS.filter((tag) =>
    [...Object.values(document.paths ?? {}), ...Object.values(downloads.paths)].some((item) =>
      Object.values(item as object).some((op: OperationObject) => op.tags?.includes(tag.name)),
    ),
  );
  // trpc-to-openapi shares one response per error code across operations; each gets its own instead.
  const schemas = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.')),
  );
  document.components = { ...document.components, schemas: { ...schemas, ...downloads.schemas, Error: errorBody } };
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, OperationObject>)) {
      const extras = openApiExtras.get(operation.operationId ?? '');
      if (!extras) throw new Error(`Public operation ${operation.operationId} has no restMeta`);
      const responses: Record<string, ResponseObject> = {};
      const success = operation.responses?.['200'] as ResponseObject;
      if (extras.otherSuccess)
        // The same body, without the success's headers (an Idempotency-Key replay answers the first status).
        responses[String(extras.otherSuccess.status)] = {
          description: extras.otherSuccess.description,
          content: success.content,
        };
      responses[String(extras.successStatus)] = success;
      for (const [status, description] of Object.entries(extras.errors))
        responses[status] = errorResponse(Number(status), description!, extras.badRequestExample);
      operation.responses = responses;
      // A body whose every property is optional may be left out (an empty POST is read as `{}`).
      const body = operation.requestBody as
        { required?: boolean; content?: Record<string, { schema?: SchemaObject }> } | undefined;
      if (body?.required && !(body.content?.['application/json']?.schema?.required ?? []).length) body.required = false;
    }
  }
  document.paths = { ...document.paths, ...downloads.paths };
  document.webhooks = identityLookupWebhooks(document);
  return document;
}

/**
 * What the service sends a workspace's webhook identity lookup and expects back (OpenAPI 3.1
 * `webhooks`: calls the service makes), from the same zod schemas the lookup validates with;
 * their schemas join the document's components.
 */
function identityLookupWebhooks(document: OpenAPIObject): OpenAPIObject['webhooks'] {
  const schema = (zodSchema: z.ZodType): SchemaObject => {
    const json = JSON.parse(
      JSON.stringify(z.toJSONSchema(zodSchema, { target: 'draft-2020-12' })).replaceAll(
        '#/$defs/',
        '#/components/schemas/',
      ),
    ) as { $defs?: Record<string, SchemaObject>; $ref?: string };
    document.components!.schemas = { ...document.components!.schemas, ...json.$defs };
    return { $ref: json.$ref! };
  };
  document.components!.securitySchemes = {
    ...document.components!.securitySchemes,
    WebhookSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'webhook-signature',
      description:
        'Standard Webhooks: `v1,` + base64(HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>")), with the lookup\'s signing secret; verify it before answering.',
    },
  };
  return {
    identityLookup: {
      post: {
        operationId: 'identityLookup',
        security: [{ WebhookSignature: [] }],
        summary: 'Identity lookup (sent by the service to your endpoint)',
        description:
          "Sent once per deletion request, before it is sent to any integration, to a workspace's webhook identity lookup: the person's identifiers known so far. " +
          'Signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the secret shown when the lookup was created. ' +
          'Answer 2xx with the other identifiers you know the person by (an empty list when none); a 5xx or 429 is tried again later, any other status fails the lookup.',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: schema(identityLookupRequestSchema) } },
        },
        responses: {
          '200': {
            description: "The person's other identifiers, each with its type.",
            content: { 'application/json': { schema: schema(identityLookupAnswerSchema) } },
          },
        },
      },
    },
  };
}
