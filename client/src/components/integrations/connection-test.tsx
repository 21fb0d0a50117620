import { identifierSchema } from '@shared/schemas/deletion-request';
import type { AccountType } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { ACTION_LABEL, type RuleDraft } from '../../lib/postgres-rules';
import { useTRPC, type RouterOutputs } from '../../trpc';
import { TextField } from '../field';
import { ConnectionResult } from './connection-result';

/** Credentials typed in the new-account form and not saved yet. */
export interface DraftAccount {
  type: AccountType;
  secrets: unknown;
}

type Trial = NonNullable<RouterOutputs['integrations']['testConfiguration']['trial']>;

/**
 * "Test connection" before saving: the configuration as the form holds it, with the chosen
 * account or the credentials typed in; a test identifier adds a trial run (counts only) where
 * the destination has a dry run. Nothing is saved, deleted or recorded.
 */
export function ConnectionTest(props: {
  type: IntegrationType;
  accountId: string | null;
  draftAccount: DraftAccount | null;
  config: () => unknown;
  onIssues: (errors: Record<string, string>) => void;
}) {
  const trpc = useTRPC();
  const [identifier, setIdentifier] = useState('');
  const [error, setError] = useState<string | undefined>();
  const test = useMutation(
    trpc.integrations.testConfiguration.mutationOptions({
      onError: (e) => props.onIssues(toDisplayError(e).fieldErrors),
      onSuccess: () => props.onIssues({}),
    }),
  );
  const run = () => {
    const typed = identifier.trim();
    const parsed = typed ? identifierSchema.safeParse(typed) : null;
    if (parsed && !parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    test.mutate({
      type: props.type,
      config: props.config(),
      accountId: props.accountId,
      account: props.accountId ? null : props.draftAccount,
      trialIdentifier: parsed?.data ?? null,
    });
  };
  const serverError = test.error ? toDisplayError(test.error) : null;
  return (
    <section className="card" aria-labelledby="connection-test-title">
      <h2 id="connection-test-title">Test before saving</h2>
      <p className="muted small">
        Connects with the settings above and the chosen account (or the credentials typed in). Nothing is saved or
        deleted.
      </p>
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
          label="Test identifier for a trial run (optional)"
          hint="Databases and data stores count what a deletion of it would change, read-only. It is not stored."
          autoComplete="off"
          value={identifier}
          error={error}
          onChange={(e) => setIdentifier(e.target.value)}
        />
        <button type="button" className="button" disabled={test.isPending} onClick={run}>
          {test.isPending ? 'Testing…' : 'Test connection'}
        </button>
      </div>
      {serverError ? (
        <ConnectionResult
          result={{
            ok: false,
            message:
              Object.keys(serverError.fieldErrors).length > 0
                ? `${serverError.message}: see the highlighted fields`
                : serverError.message,
          }}
        />
      ) : test.data ? (
        <>
          <ConnectionResult result={test.data} />
          {test.data.trial ? <TrialResult trial={test.data.trial} /> : null}
        </>
      ) : null}
    </section>
  );
}

/** What a deletion would change for the test identifier, per rule; or why nothing was counted. */
function TrialResult({ trial }: { trial: Trial }) {
  if (!trial.offered || !trial.ok)
    return (
      <p className="muted small" role="status" aria-label="Trial run">
        Trial run: {trial.message}
      </p>
    );
  const total = trial.rules.reduce((sum, r) => sum + r.rows, 0);
  return (
    <div role="status" aria-label="Trial run">
      <p className="small">
        Trial run: a deletion would change {total} {total === 1 ? 'match' : 'matches'}. Nothing was changed.
      </p>
      <ul className="small">
        {trial.rules.map((r, i) => (
          <li key={i} data-trial-table={r.table}>
            {r.table}: {r.rows} · {ACTION_LABEL[r.action as RuleDraft['action']] ?? r.action}
          </li>
        ))}
      </ul>
    </div>
  );
}
