import { CSV_IMPORT_MAX_BYTES, CSV_IMPORT_MAX_ROWS } from '@shared/schemas/csv-import';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { SelectField, TextField } from '../components/field';
import { PageHeader } from '../components/shell';
import { ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useTRPC } from '../trpc';
import './request-import.css';

const RESULT_LABEL = { created: 'Created', existing: 'Already existed', error: 'Error' } as const;

/** Bulk creation from a CSV file, with the server's report per row. */
export function Component() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspaces = useQuery(trpc.workspaces.list.queryOptions());
  const [file, setFile] = useState<File | null>(null);
  const [workspaceId, setWorkspaceId] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const importCsv = useMutation(
    trpc.deletionRequests.importCsv.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() }),
    }),
  );
  const serverError = importCsv.error ? toDisplayError(importCsv.error) : null;

  const submit = async () => {
    setFileError(null);
    if (!file) return setFileError('Choose a CSV file');
    if (file.size > CSV_IMPORT_MAX_BYTES)
      return setFileError(`The file is larger than ${CSV_IMPORT_MAX_BYTES / 1024} KiB; split it into several uploads`);
    // The file name is the batch key: uploading the same file again creates nothing new.
    importCsv.mutate({ csv: await file.text(), ...(workspaceId ? { workspaceId } : {}), batchKey: file.name });
  };

  if (workspaces.isPending) return <Loading />;
  if (workspaces.isError) return <ErrorState error={workspaces.error} onRetry={() => void workspaces.refetch()} />;
  const report = importCsv.data;
  return (
    <>
      <PageHeader
        title="Import requests from CSV"
        description={`One deletion request per row; at most ${CSV_IMPORT_MAX_ROWS} rows per file.`}
      />
      <section className="card">
        <p className="small">
          First line: the column names. <code>identifier</code> is required; <code>workspace</code> (a workspace name or
          id), <code>regulation</code> (GDPR, CCPA or one of your policies) and <code>receivedAt</code> (when the
          subject&apos;s request reached you, as 2026-11-20 or 2026-11-20T09:14:00Z: the deadline runs from it) are
          optional. Uploading the same file (same name) again only reports the rows that already exist.
        </p>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <TextField
            label="CSV file"
            type="file"
            name="file"
            accept=".csv,text/csv"
            error={fileError ?? undefined}
            onChange={(event) => {
              setFile(event.target.files?.[0] ?? null);
              importCsv.reset();
            }}
          />
          <SelectField
            label="Workspace for rows without one"
            name="workspaceId"
            value={workspaceId}
            onChange={(event) => setWorkspaceId(event.target.value)}
          >
            <option value="">(the file's workspace column)</option>
            {workspaces.data.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </SelectField>
          {serverError ? <FormError message={serverError.message} /> : null}
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={importCsv.isPending}>
              {importCsv.isPending ? 'Importing…' : 'Import'}
            </button>
            <Link to="/requests" className="button">
              Back to requests
            </Link>
          </div>
        </form>
      </section>
      {report ? (
        <section className="card" aria-label="Import report">
          <h2>Report</h2>
          <p role="status">
            {report.created} created, {report.existing} already existed, {report.errors} with errors.
          </p>
          <table className="table import-report">
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Result</th>
                <th scope="col">Request or reason</th>
              </tr>
            </thead>
            <tbody>
              {report.rows.map((row) => (
                <tr key={row.line} data-result={row.result}>
                  <td>{row.line}</td>
                  <td>{RESULT_LABEL[row.result]}</td>
                  <td>
                    {row.deletionRequestId ? (
                      <Link to={`/requests/${row.deletionRequestId}`}>{row.deletionRequestId}</Link>
                    ) : (
                      row.message
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </>
  );
}
