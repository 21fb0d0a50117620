import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requestSearchFilterSchema } from '@shared/schemas/dashboard';
import { AppError } from '../lib/errors';
import { exportAuditTrailCsv } from '../services/csv/export-audit-trail';
import { exportRequestsCsv } from '../services/csv/export-requests';
import type { ServiceDeps } from '../services/deps';
import { actorOf, assertTokenScope, guarded } from './downloads';

const exportInputSchema = z.object({
  filter: requestSearchFilterSchema.default({}),
  sort: z.enum(['created', 'due']).default('created'),
});

/** GET's query: the list filters except the identifier, which never travels in a URL (POST it in the body). */
const exportQuerySchema = z
  .object({
    workspaceId: z.string().optional(),
    statuses: z.string().optional(),
    createdFrom: z.string().optional(),
    createdTo: z.string().optional(),
    createdByUserId: z.string().optional(),
    due: z.string().optional(),
    sort: z.string().optional(),
    identifier: z
      .never({ error: 'A subject identifier may not be sent in a URL; POST the filters as JSON instead' })
      .optional(),
  })
  .strict();

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new AppError('BAD_REQUEST', result.error.issues[0]?.message ?? 'Invalid input', {
      issues: result.error.issues,
    });
  return result.data;
}

/**
 * Streams CSV lines with backpressure. The first chunk is produced before any header is
 * sent, so "not found" or a bad filter is still a clean 4xx, never a half-written file.
 */
async function streamCsv(reply: FastifyReply, filename: string, lines: AsyncGenerator<string>) {
  const first = await lines.next();
  async function* all() {
    if (!first.done) yield first.value;
    yield* lines;
  }
  return reply
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .header('Cache-Control', 'private, no-store')
    .send(Readable.from(all(), { objectMode: false }));
}

const stamp = () => new Date().toISOString().slice(0, 19).replaceAll(':', '').replace('T', '-');

/**
 * CSV exports as authenticated downloads (a PAT with `requests:read`, or the dashboard's
 * session): the filtered request list and one request's audit trail.
 */
export function registerCsvDownloadRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  const exportList = (request: FastifyRequest, reply: FastifyReply, input: z.output<typeof exportInputSchema>) =>
    guarded(reply, async () => {
      const actor = await actorOf(deps, request);
      assertTokenScope(actor, 'requests:read');
      return streamCsv(
        reply,
        `deletion-requests-${stamp()}.csv`,
        exportRequestsCsv(deps.prisma, deps.keyring, actor, input),
      );
    });

  app.get('/api/downloads/requests.csv', (request, reply) =>
    guarded(reply, async () => {
      const query = parse(exportQuerySchema, request.query ?? {});
      // An empty parameter (`workspaceId=&…`, as a form or a template leaves it) is no filter.
      const given = (value: string | undefined) => value || undefined;
      const input = parse(exportInputSchema, {
        filter: {
          workspaceId: given(query.workspaceId),
          statuses: query.statuses ? query.statuses.split(',').filter(Boolean) : undefined,
          createdFrom: given(query.createdFrom),
          createdTo: given(query.createdTo),
          createdByUserId: given(query.createdByUserId),
          due: given(query.due),
        },
        sort: given(query.sort),
      });
      return exportList(request, reply, input);
    }),
  );

  app.post('/api/downloads/requests.csv', (request, reply) =>
    guarded(reply, async () => exportList(request, reply, parse(exportInputSchema, request.body ?? {}))),
  );

  app.get<{ Params: { id: string } }>('/api/downloads/requests/:id/audit-trail.csv', (request, reply) =>
    guarded(reply, async () => {
      if (!/^dr_[0-9a-z]{1,60}$/.test(request.params.id)) throw new AppError('NOT_FOUND', 'Deletion request not found');
      const actor = await actorOf(deps, request);
      assertTokenScope(actor, 'requests:read');
      return streamCsv(
        reply,
        `audit-trail-${request.params.id}.csv`,
        exportAuditTrailCsv(deps.prisma, actor, request.params.id),
      );
    }),
  );
}
