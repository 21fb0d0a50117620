import {
  CSV_IMPORT_COLUMNS,
  CSV_IMPORT_MAX_BYTES,
  CSV_IMPORT_MAX_ROWS,
  type CsvImportInput,
  type CsvImportResult,
} from '@shared/schemas/csv-import';
import { identifierSchema, receivedAtSchema } from '@shared/schemas/deletion-request';
import { regulationNameSchema } from '@shared/deadlines';
import type { Db } from '../../db/client';
import { CsvSyntaxError, parseCsv } from '../../lib/csv';
import { identifierHmac, type Keyring } from '../../lib/crypto';
import { organizationIdentifierTypes } from '../../services/identities/identifier-values';
import { AppError } from '../../lib/errors';
import { mayUseWorkspace, type Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { createDeletionRequest } from './create';

type Row = CsvImportResult['rows'][number];

/**
 * The Idempotency-Key of one row: keyed by organization, workspace, batch key and identifier
 * through the identifier pepper (the stored key reveals nothing about the subject).
 */
export function rowIdempotencyKey(
  keyring: Keyring,
  organizationId: string,
  workspaceId: string,
  batchKey: string,
  identifier: string,
): string {
  return `csv_${identifierHmac(keyring, `csv-import\n${organizationId}\n${workspaceId}\n${batchKey}\n${identifier}`)}`;
}

/**
 * How long an upload counts as a repeat of an earlier one: a row whose request (same batch key,
 * workspace and subject) is older than this is a subject asking again, and gets a new request.
 */
export const CSV_REPLAY_WINDOW_MS = 24 * 3_600_000;
/** Earlier imports of one subject under one batch key followed, at most (one per repeat). */
const MAX_KEY_CHAIN = 50;

/**
 * The key a row is created under: the row's own key while no request holds it, or holds it since
 * less than CSV_REPLAY_WINDOW_MS (a repeated or fixed upload: that request answers); past it,
 * the next key of the chain, derived from the older request's id, so that the same file name
 * months later asks again for a subject who asks again.
 */
async function currentRowKey(db: Db, keyring: Keyring, actor: Actor, rowKey: string, now: Date): Promise<string> {
  let key = rowKey;
  for (let i = 0; i < MAX_KEY_CHAIN; i++) {
    const earlier = await db.deletionRequest.findUnique({
      where: {
        organizationId_createdByUserId_idempotencyKey: {
          organizationId: actor.organizationId,
          createdByUserId: actor.userId,
          idempotencyKey: key,
        },
      },
      select: { id: true, createdAt: true },
    });
    if (!earlier || now.getTime() - earlier.createdAt.getTime() < CSV_REPLAY_WINDOW_MS) return key;
    key = `csv_${identifierHmac(keyring, `csv-import-again\n${key}\n${earlier.id}`)}`;
  }
  return key;
}

type Columns = Record<(typeof CSV_IMPORT_COLUMNS)[number], number | undefined> & {
  /** One column per identifier type of the organization (email, phone, user_id, its own), by position. */
  types: { type: string; at: number }[];
};

function header(cells: string[], identifierTypes: string[]): Columns {
  // Column names in any case ("receivedAt", "ReceivedAt", "receivedat").
  const names = cells.map((c) => c.trim().toLowerCase());
  const known = [...CSV_IMPORT_COLUMNS.map((column) => column.toLowerCase()), ...identifierTypes];
  // Named by position, never quoted: a file without its header line has an identifier in line 1.
  const unknown = names.flatMap((n, i) => (known.includes(n) ? [] : [i + 1]));
  if (unknown.length)
    throw new AppError(
      'BAD_REQUEST',
      `Line 1 must name the columns (${CSV_IMPORT_COLUMNS.join(', ')}, or an identifier type: ${identifierTypes.join(', ')}); ${unknown.length === 1 ? 'column' : 'columns'} ${unknown.join(', ')} of line 1 ${unknown.length === 1 ? 'is not one of them' : 'are not'}`,
    );
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new AppError('BAD_REQUEST', `Column "${duplicate}" appears twice in line 1`);
  const types = names.flatMap((n, at) => (identifierTypes.includes(n) ? [{ type: n, at }] : []));
  if (!names.includes('identifier') && types.length === 0)
    throw new AppError(
      'BAD_REQUEST',
      'Line 1 must name the columns, with at least "identifier" or an identifier type (email, phone, user_id…)',
    );
  const at = (name: string) => (names.includes(name.toLowerCase()) ? names.indexOf(name.toLowerCase()) : undefined);
  return {
    identifier: at('identifier'),
    workspace: at('workspace'),
    regulation: at('regulation'),
    receivedAt: at('receivedAt'),
    types,
  };
}

/**
 * Creates one deletion request per CSV row through the one create command, and reports each
 * row: created, already existing (the same row imported with the same batch key within
 * CSV_REPLAY_WINDOW_MS, or earlier in the same file), or refused with the reason. A bad row does not stop the others. Whole-file problems (too big,
 * broken quoting, no header) are a 4xx before anything is created.
 */
export async function importRequestsCsv(
  deps: { prisma: Db; keyring: Keyring },
  actor: Actor,
  input: CsvImportInput,
): Promise<CsvImportResult> {
  if (Buffer.byteLength(input.csv, 'utf8') > CSV_IMPORT_MAX_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The file is larger than ${CSV_IMPORT_MAX_BYTES / 1024} KiB; split it into several uploads`,
    );
  }
  let records;
  try {
    records = parseCsv(input.csv);
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new AppError('BAD_REQUEST', `Line ${error.line}: ${error.message}`);
    throw error;
  }
  const [first, ...data] = records;
  if (!first) throw new AppError('BAD_REQUEST', 'The file is empty');
  const columns = header(first.cells, await organizationIdentifierTypes(deps.prisma, actor.organizationId));
  if (data.length > CSV_IMPORT_MAX_ROWS)
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The file has ${data.length} rows; at most ${CSV_IMPORT_MAX_ROWS} per upload`,
    );
  if (columns.workspace === undefined && !input.workspaceId)
    throw new AppError('BAD_REQUEST', 'Choose a workspace, or add a "workspace" column');

  const workspaces = await deps.prisma.workspace.findMany({
    where: { organizationId: actor.organizationId },
    select: { id: true, name: true },
  });
  const byId = new Map(workspaces.map((w) => [w.id, w.id]));
  const byName = new Map<string, string[]>();
  for (const w of workspaces) byName.set(w.name.trim(), [...(byName.get(w.name.trim()) ?? []), w.id]);
  if (input.workspaceId && !byId.has(input.workspaceId)) throw new AppError('NOT_FOUND', 'Workspace not found');

  const workspaceOf = (cell: string | undefined): string => {
    const ref = cell?.trim();
    if (!ref) {
      if (!input.workspaceId)
        throw new Error('No workspace: fill the "workspace" cell or choose a workspace for the upload');
      return input.workspaceId;
    }
    const id = byId.get(ref);
    if (id) return id;
    const named = byName.get(ref) ?? [];
    if (named.length > 1) throw new Error('Several workspaces have this name; use the workspace id');
    if (!named[0]) throw new Error('No workspace with this name or id in the organization');
    return named[0];
  };

  const batchKey = input.batchKey ?? '';
  const now = new Date();
  const rows: Row[] = [];
  // The line each subject first appeared on in this file, by workspace.
  const firstLine = new Map<string, number>();
  for (const record of data) {
    // A line of empty cells (",,", as spreadsheets write them) is no row.
    if (record.cells.every((cell) => cell.trim() === '')) continue;
    const refuse = (message: string) =>
      rows.push({ line: record.line, result: 'error', deletionRequestId: null, message });
    if (record.cells.length > first.cells.length) {
      refuse(`The row has ${record.cells.length} cells; the header names ${first.cells.length}`);
      continue;
    }
    // The person's typed identifiers; without an "identifier" column the first of them is the primary one.
    const typed = columns.types
      .map(({ type, at }) => ({ type, value: (record.cells[at] ?? '').trim() }))
      .filter((cell) => cell.value !== '');
    const primaryTyped = columns.identifier === undefined ? typed.shift() : undefined;
    const identifier = identifierSchema.safeParse(
      primaryTyped?.value ?? (columns.identifier === undefined ? '' : (record.cells[columns.identifier] ?? '')),
    );
    if (!identifier.success) {
      refuse(identifier.error.issues[0]?.message ?? 'Invalid identifier');
      continue;
    }
    const regulationCell = columns.regulation === undefined ? '' : (record.cells[columns.regulation] ?? '').trim();
    const regulation = regulationCell ? regulationNameSchema.safeParse(regulationCell) : null;
    if (regulation && !regulation.success) {
      refuse(regulation.error.issues[0]?.message ?? 'Invalid regulation');
      continue;
    }
    const receivedCell = columns.receivedAt === undefined ? '' : (record.cells[columns.receivedAt] ?? '').trim();
    const receivedAt = receivedCell ? receivedAtSchema.safeParse(receivedCell) : null;
    if (receivedAt && !receivedAt.success) {
      refuse(`receivedAt: ${receivedAt.error.issues[0]?.message ?? 'not a date'}`);
      continue;
    }
    let workspaceId: string;
    try {
      workspaceId = workspaceOf(columns.workspace === undefined ? undefined : record.cells[columns.workspace]);
    } catch (error) {
      refuse((error as Error).message);
      continue;
    }
    if (!mayUseWorkspace(actor, workspaceId)) {
      refuse('This token is not allowed to act on this workspace');
      continue;
    }
    const subject = `${workspaceId}\n${identifier.data}`;
    const seenOn = firstLine.get(subject);
    if (seenOn === undefined) firstLine.set(subject, record.line);
    try {
      const rowKey = rowIdempotencyKey(deps.keyring, actor.organizationId, workspaceId, batchKey, identifier.data);
      const { deletionRequest, replayed } = await createDeletionRequest(deps, actor, {
        workspace: { id: workspaceId },
        identifier: identifier.data,
        ...(primaryTyped ? { identifierType: primaryTyped.type } : {}),
        ...(typed.length > 0 ? { identifiers: typed } : {}),
        regulation: regulation?.data,
        receivedAt: receivedAt?.data,
        idempotencyKey: await currentRowKey(deps.prisma, deps.keyring, actor, rowKey, now),
      });
      rows.push({
        line: record.line,
        result: replayed ? 'existing' : 'created',
        deletionRequestId: deletionRequest.id,
        message: seenOn !== undefined ? `The same subject and workspace as line ${seenOn}` : null,
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // The same row was imported before under this batch key with another regulation.
      refuse(
        error.code === 'UNPROCESSABLE_CONTENT'
          ? 'Imported before with a different regulation or time of receipt under this batch key'
          : error.message,
      );
    }
  }
  const count = (result: Row['result']) => rows.filter((r) => r.result === result).length;
  const report = { created: count('created'), existing: count('existing'), errors: count('error'), rows };
  await recordAudit(deps.prisma, actor, {
    organizationId: actor.organizationId,
    action: 'requests.imported',
    summary: `CSV import: ${report.created} created, ${report.existing} already existed, ${report.errors} refused`,
    details: {
      created: report.created,
      existing: report.existing,
      errors: report.errors,
      rows: data.length,
      batchKey: input.batchKey ?? null,
    },
  });
  return report;
}
