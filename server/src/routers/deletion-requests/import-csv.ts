import {
  csvImportInputSchema,
  csvImportResultSchema,
  CSV_IMPORT_MAX_BYTES,
  CSV_IMPORT_MAX_ROWS,
} from '@shared/schemas/csv-import';
import { memberProcedure } from '../../trpc/procedures';
import { importRequestsCsv } from '../../pipeline/commands/import-csv';
import { idempotentCall } from '../idempotent-call';
import { idempotencyRequestHeaders, idempotencyResponseHeaders, TAG } from './shared-meta';
import { restMeta } from '../rest-meta';

/** POST /api/public/deletion-requests/import: many requests from one CSV file, with a report per row. */
export const importCsv = memberProcedure
  .meta(
    restMeta({
      method: 'POST',
      path: '/deletion-requests/import',
      operationId: 'importDeletionRequestsCsv',
      tag: TAG,
      scope: 'requests:write',
      summary: 'Import deletion requests from CSV',
      description:
        `Creates one deletion request per row of a CSV file (at most ${CSV_IMPORT_MAX_ROWS} rows and ${CSV_IMPORT_MAX_BYTES / 1024} KiB). ` +
        'Columns: `identifier` (required), `workspace` (name or id; or `workspaceId` for the whole upload), `regulation` (optional). ' +
        'Each row is validated on its own: a bad row is reported and the others are created. Uploading the same rows again with the same `batchKey` creates nothing new (`existing`). ' +
        'An `Idempotency-Key` header, as on every public POST, replays the first report itself: the same key with the same body answers it again; with another body it is a 422.',
      requestHeaders: idempotencyRequestHeaders,
      responseHeaders: idempotencyResponseHeaders,
      successDescription:
        'One result per data row, in file order: `created`, `existing` (imported before under the same batch key) or `error` with the reason.',
      errors: {
        400: 'Not CSV as expected: broken quoting, no `identifier` column, an unknown column, or neither a `workspace` column nor `workspaceId`.',
        404: "`workspaceId` names no workspace of the token's organization.",
        409: 'An earlier call with the same Idempotency-Key is still running.',
        413: `More than ${CSV_IMPORT_MAX_ROWS} rows or ${CSV_IMPORT_MAX_BYTES / 1024} KiB of CSV (the body may take twice that, as JSON escapes quotes and line breaks).`,
        422: 'This Idempotency-Key was already used with a different request.',
      },
    }),
  )
  .input(csvImportInputSchema)
  .output(csvImportResultSchema)
  .mutation(async ({ ctx, input }) => {
    // The report names request ids and reasons, never an identifier: it is kept as it is.
    return idempotentCall(ctx, 'importDeletionRequestsCsv', input, () => importRequestsCsv(ctx, ctx.actor, input));
  });
