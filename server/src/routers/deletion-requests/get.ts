import { z } from 'zod';
import {
  auditEntrySchema,
  auditTrailQuerySchema,
  deletionRequestSchema,
  queryBoolean,
} from '@shared/schemas/deletion-request';
import { memberProcedure } from '../../trpc/procedures';
import { getAuditTrail, getDeletionRequest } from '../../services/deletion-requests/get-deletion-request';
import { restMeta } from '../rest-meta';
import { setNextLink, TAG } from './shared-meta';
import { onRequest, REQUEST_NOT_FOUND, requestPath, MALFORMED_ID } from './action-support';

/** GET /deletion-requests/{id}: a deletion request with its integration requests. */
export const get = memberProcedure
  .meta(
    restMeta({
      method: 'GET',
      path: requestPath,
      operationId: 'getDeletionRequest',
      tag: TAG,
      scope: 'requests:read',
      summary: 'Get a deletion request',
      description:
        'One deletion request with its integration requests (status, attempts, tracking id, last error per integration).',
      successDescription: 'The deletion request.',
      badRequestExample: MALFORMED_ID,
      errors: {
        400: 'A malformed id (deletion requests are `dr_…`) or an invalid fetchHashed.',
        404: REQUEST_NOT_FOUND,
      },
    }),
  )
  .input(
    onRequest.extend({
      fetchHashed: queryBoolean(true).meta({
        description: 'When true, an identifier that has been hashed is redacted.',
      }),
    }),
  )
  .output(deletionRequestSchema)
  .query(({ ctx, input }) =>
    getDeletionRequest(ctx.prisma, ctx.actor, input.deletionRequestId, { fetchHashed: input.fetchHashed }),
  );

/** GET /deletion-requests/{id}/audit-trail: oldest first, paginated like the lists. */
export const auditTrail = memberProcedure
  .meta(
    restMeta({
      method: 'GET',
      path: `${requestPath}/audit-trail`,
      operationId: 'listDeletionRequestAuditTrail',
      tag: TAG,
      scope: 'requests:read',
      summary: "List a deletion request's audit trail",
      description:
        'Every recorded step of the request, oldest first: creation, each attempt with the HTTP exchange or SQL it made (account secrets redacted, bodies truncated at 4 KB), status checks, retries, cancels and completion. ' +
        'Paginated with `limit` and `cursor`; the next page is announced in the `Link` header.',
      successDescription: 'One page of audit entries, oldest first.',
      responseHeaders: z.object({
        Link: z.string().optional().meta({ description: 'Present when there is a next page: `<url>; rel="next"`.' }),
      }),
      badRequestExample: MALFORMED_ID,
      errors: {
        400: 'A malformed id (deletion requests are `dr_…`), or an invalid limit or cursor.',
        404: REQUEST_NOT_FOUND,
      },
    }),
  )
  .input(onRequest.extend(auditTrailQuerySchema.shape))
  .output(z.array(auditEntrySchema))
  .query(async ({ ctx, input }) => {
    const { deletionRequestId, cursor, limit } = input;
    const page = await getAuditTrail(ctx.prisma, ctx.actor, deletionRequestId, { limit, cursor });
    setNextLink(
      ctx,
      `/deletion-requests/${encodeURIComponent(deletionRequestId)}/audit-trail`,
      { limit },
      page.nextCursor,
    );
    return page.entries;
  });
