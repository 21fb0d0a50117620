import type { TaskPage } from '@shared/schemas/manual-tasks';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { AnswerForm } from '../components/manual-tasks/answer-form';
import { Loading } from '../components/states';
import { errorCode, toDisplayError } from '../lib/errors';
import { tokenFromHash } from '../lib/link-token';
import { useTRPC } from '../trpc';

const GONE =
  'This task link no longer opens: it was answered or withdrawn, it has expired, or it is not a link we sent.';

/** Fills the instructions' placeholders with each identifier as shown (masked until revealed). */
function fillInstructions(text: string, page: TaskPage, revealed: Record<string, string>): string {
  return text.replace(/\{\{\s*([a-z][a-z0-9_]{0,63})\s*\}\}/gi, (whole, name: string) => {
    const key = name.toLowerCase();
    const found =
      key === 'identifier' ? page.identifiers.find((i) => i.primary) : page.identifiers.find((i) => i.type === key);
    return found ? (revealed[found.id] ?? found.masked) : whole;
  });
}

/** The page an owner opens from the emailed link: no account, the link's token only. */
export function Component() {
  const trpc = useTRPC();
  const [token] = useState(() => tokenFromHash(window.location.hash));
  const [revealed, setRevealed] = useState<Record<string, string>>({});
  const open = useMutation(trpc.manualTasks.openTask.mutationOptions());
  const reveal = useMutation(trpc.manualTasks.revealOnTask.mutationOptions());
  const answer = useMutation(trpc.manualTasks.answerOnTask.mutationOptions());
  useEffect(() => {
    document.title = 'Deletion task · Deletion Requests';
    // The token has been read: keep it out of the history.
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
    if (token) open.mutate({ token });
  }, []);
  const page = open.data;
  const gone = !token || errorCode(open.error) === 'NOT_FOUND' || errorCode(answer.error) === 'NOT_FOUND';
  return (
    <main className="centered-page">
      <section className="card">
        <h1>Deletion task</h1>
        {answer.isSuccess ? (
          <p role="status">Thank you: your answer was recorded. This link no longer opens.</p>
        ) : gone ? (
          <p className="form-error" role="alert">
            {GONE}
          </p>
        ) : open.error ? (
          <p className="form-error" role="alert">
            {toDisplayError(open.error).message}
          </p>
        ) : !page ? (
          <Loading />
        ) : (
          <div className="stack">
            <p>
              {page.organizationName} asks you to delete a person&apos;s data from{' '}
              <strong>{page.integrationName}</strong> by {page.dueAt.slice(0, 10)}.
            </p>
            <h2>Who</h2>
            <ul>
              {page.identifiers.map((identifier) => (
                <li key={identifier.id}>
                  {identifier.type ?? 'identifier'}: <code>{revealed[identifier.id] ?? identifier.masked}</code>{' '}
                  {revealed[identifier.id] ? null : (
                    <button
                      type="button"
                      className="button button-small"
                      disabled={reveal.isPending}
                      onClick={() =>
                        reveal.mutate(
                          { token, identifierId: identifier.id },
                          { onSuccess: ({ value }) => setRevealed((r) => ({ ...r, [identifier.id]: value })) },
                        )
                      }
                    >
                      Show {identifier.type ?? 'identifier'}
                    </button>
                  )}
                </li>
              ))}
            </ul>
            {page.instructions ? (
              <>
                <h2>Instructions</h2>
                <div className="instructions" style={{ whiteSpace: 'pre-wrap' }}>
                  {fillInstructions(page.instructions, page, revealed)}
                </div>
              </>
            ) : null}
            <AnswerForm
              pending={answer.isPending}
              error={answer.error ? toDisplayError(answer.error).message : null}
              onAnswer={(submission) => answer.mutate({ token, ...submission })}
            />
          </div>
        )}
      </section>
    </main>
  );
}
