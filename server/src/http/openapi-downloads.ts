import type { OperationObject, ParameterObject, PathItemObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { z } from 'zod';
import { requestSearchFilterSchema } from '@shared/schemas/dashboard';
import { certificateJsonSchema } from '../services/certificates/certificate-schema';

type ErrorResponse = (status: number, description: string) => ResponseObject;

const requestId: ParameterObject = {
  name: 'deletionRequestId',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^dr_[0-9a-z]{1,60}$' },
};

const file = (type: string, description: string, schema: SchemaObject): ResponseObject => ({
  description,
  headers: { 'Content-Disposition': { description: 'attachment; filename="…"', schema: { type: 'string' } } },
  content: { [type]: { schema } },
});

const csv = (description: string) => file('text/csv', description, { type: 'string' });

/** The CSV list filters a GET takes as query parameters (the identifier never: POST it). */
const LIST_QUERY = ['workspaceId', 'statuses', 'createdFrom', 'createdTo', 'createdByUserId', 'due', 'sort'];

/**
 * The file downloads under /api/downloads (certificates of deletion, the signing key, CSV
 * exports), described beside the JSON API: each path item names its own server, /api.
 */
export function downloadPaths(publicUrl: string | undefined, errorResponse: ErrorResponse) {
  const servers = [{ url: publicUrl ? new URL('/api', publicUrl).toString() : '/api' }];
  const op = (
    operationId: string,
    summary: string,
    ok: ResponseObject,
    errors: Record<number, string>,
    extra: Partial<OperationObject> = {},
  ): OperationObject => ({
    operationId,
    summary,
    tags: ['Downloads'],
    security: [{ ApiKey: [] }],
    ...extra,
    responses: {
      200: ok,
      ...Object.fromEntries(
        Object.entries({
          401: 'No valid personal access token was sent.',
          403: 'The token lacks the `requests:read` scope or this workspace.',
          ...errors,
        }).map(([status, description]) => [status, errorResponse(Number(status), description)]),
      ),
    },
  });
  const notFound = { 404: 'No such deletion request in this organization.' };
  const badFilter = { 400: 'The filter is not valid.' };
  const certificateOf = (ext: 'json' | 'pdf'): PathItemObject => ({
    servers,
    get: op(
      ext === 'json' ? 'downloadCertificateJson' : 'downloadCertificatePdf',
      ext === 'json'
        ? 'Download the signed certificate of deletion of a finished request (JSON)'
        : 'Download the certificate of deletion as a PDF, the signed JSON attached',
      ext === 'json'
        ? file('application/json', 'The signed certificate.', { $ref: '#/components/schemas/Certificate' })
        : file('application/pdf', 'The PDF.', { type: 'string', contentMediaType: 'application/pdf' }),
      { ...notFound, 409: 'The request is still running: a certificate is issued once it has finished.' },
      { parameters: [requestId] },
    ),
  });
  const paths: Record<string, PathItemObject> = {
    '/downloads/certificates/{deletionRequestId}.json': certificateOf('json'),
    '/downloads/certificates/{deletionRequestId}.pdf': certificateOf('pdf'),
    '/downloads/certificate-public-key.pem': {
      servers,
      get: op(
        'downloadCertificatePublicKey',
        "The organization's certificate-signing public key (PEM, SPKI)",
        file('application/x-pem-file', 'The public key.', { type: 'string' }),
        {},
      ),
    },
    '/downloads/requests.csv': {
      servers,
      get: op(
        'downloadRequestsCsv',
        'The Requests list as CSV (RFC 4180), with the dashboard filters as query parameters',
        csv('One line per request.'),
        badFilter,
        {
          parameters: LIST_QUERY.map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
        },
      ),
      post: op(
        'searchRequestsCsv',
        'The Requests list as CSV, with the filter in the body',
        csv('One line per request.'),
        badFilter,
        {
          requestBody: {
            required: false,
            content: {
              'application/json': {
                schema: z.toJSONSchema(
                  z.object({
                    filter: requestSearchFilterSchema.optional(),
                    sort: z.enum(['created', 'due']).optional(),
                  }),
                  { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' },
                ) as SchemaObject,
              },
            },
          },
        },
      ),
    },
    '/downloads/requests/{deletionRequestId}/audit-trail.csv': {
      servers,
      get: op(
        'downloadAuditTrailCsv',
        "One request's whole audit trail as CSV, oldest first",
        csv('One line per audit entry.'),
        notFound,
        { parameters: [requestId] },
      ),
    },
  };
  return { paths, schemas: { Certificate: certificateJsonSchema } };
}
