import { z } from 'zod';

/** At most this many data rows per upload (a larger file: split it). */
export const CSV_IMPORT_MAX_ROWS = 1000;
/** At most this many bytes of CSV text per upload (UTF-8). */
export const CSV_IMPORT_MAX_BYTES = 256 * 1024;
/** The columns a file may have; `identifier` is required, the others optional. */
export const CSV_IMPORT_COLUMNS = ['identifier', 'workspace', 'regulation', 'receivedAt'] as const;

export const csvImportInputSchema = z.object({
  csv: z.string().min(1, 'The file is empty').meta({
    description:
      "The CSV text (UTF-8, comma-separated, RFC 4180 quoting). First line: the column names `identifier` (required), `workspace` (a workspace name or id), `regulation` (GDPR, CCPA or a custom policy name) and `receivedAt` (when the subject's request was received: a date, or a date and time with its offset; the deadline runs from it), in any order.",
    example: 'identifier,workspace,regulation\njane@example.com,Production,GDPR\n',
  }),
  workspaceId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'The workspace of rows whose `workspace` cell is empty or absent.', example: 'ws_…' }),
  batchKey: z.string().trim().max(200).optional().meta({
    description:
      "Names the upload (a file name, a ticket number). Each row's request is keyed by organization + workspace + identifier + this key, so uploading the same rows again with the same key creates nothing new.",
    example: 'crm-export-2026-11.csv',
  }),
});
export type CsvImportInput = z.infer<typeof csvImportInputSchema>;

export const csvImportRowResultSchema = z.object({
  /** The row's first line in the file (the header is line 1). */
  line: z.number().int(),
  result: z.enum(['created', 'existing', 'error']),
  deletionRequestId: z.string().nullable(),
  /** Why the row was refused; never repeats the identifier. */
  message: z.string().nullable(),
});

export const csvImportResultSchema = z.object({
  created: z.number().int(),
  existing: z.number().int(),
  errors: z.number().int(),
  rows: z.array(csvImportRowResultSchema),
});
export type CsvImportResult = z.infer<typeof csvImportResultSchema>;
