import { identifierSchema } from '@shared/schemas/deletion-request';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { ACTION_LABEL, type RuleDraft } from '../../lib/postgres-rules';
import { useTRPC } from '../../trpc';
import { TextField } from '../field';
import { FormError } from '../states';

/** How a dry run's result is worded for a kind of store (a database counts rows; Redis keys; S3 objects; DynamoDB items). */
export interface DryRunWording {
  explanation: string;
  /** The heading of the count column. */
  counted: string;
  /** The heading of the statements (or commands) sent. */
  statements: string;
}

export const SQL_DRY_RUN: DryRunWording = {
  explanation:
    'Counts the rows each rule would change for an identifier, in a read-only transaction. Nothing is changed.',
  counted: 'Rows',
  statements: 'SQL statements',
};

/** Read-only preview: how many rows each rule would change for an identifier, and the SQL. */
export function DryRunPanel(props: {
  accountId: string | null;
  config: () => unknown;
  onIssues: (errors: Record<string, string>) => void;
  wording?: DryRunWording;
}) {
  const wording = props.wording ?? SQL_DRY_RUN;
  const trpc = useTRPC();
  const [identifier, setIdentifier] = useState('');
  const [error, setError] = useState<string | undefined>();
  const dryRun = useMutation(
    trpc.integrations.dryRun.mutationOptions({
      onError: (e) => props.onIssues(toDisplayError(e).fieldErrors),
      onSuccess: () => props.onIssues({}),
    }),
  );
  const run = () => {
    const parsed = identifierSchema.safeParse(identifier);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    dryRun.mutate({ accountId: props.accountId!, config: props.config(), identifier: parsed.data });
  };
  const serverError = dryRun.error ? toDisplayError(dryRun.error) : null;
  return (
    <section className="card dry-run" aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run</h2>
      <p className="muted small">{wording.explanation}</p>
      <div
        className="inline-form"
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            run();
          }
        }}
      >
        <TextField
          label="Identifier to preview"
          value={identifier}
          error={error}
          onChange={(e) => setIdentifier(e.target.value)}
        />
        <button type="button" className="button" disabled={!props.accountId || dryRun.isPending} onClick={run}>
          {dryRun.isPending ? 'Counting…' : 'Preview'}
        </button>
      </div>
      <FormError message={serverError?.message} />
      {dryRun.data ? (
        <div role="status" aria-label="Dry run result">
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Action</th>
                  <th scope="col">{wording.counted}</th>
                </tr>
              </thead>
              <tbody>
                {dryRun.data.rules.map((r, i) => (
                  <tr key={i} data-dry-run-table={r.table}>
                    <td>{r.table}</td>
                    <td>{ACTION_LABEL[r.action as RuleDraft['action']] ?? r.action}</td>
                    <td className="mono">{r.rows}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <details className="audit-block">
            <summary>{wording.statements}</summary>
            <pre className="code-block">{dryRun.data.statements.filter(Boolean).join('\n\n')}</pre>
          </details>
        </div>
      ) : null}
    </section>
  );
}
