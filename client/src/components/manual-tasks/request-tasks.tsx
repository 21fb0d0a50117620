import { MANUAL_ANSWER_LABEL, type ManualAnswerKind } from '@shared/schemas/manual-tasks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toDisplayError } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';
import { useTRPC } from '../../trpc';
import { AnswerForm } from './answer-form';

const VIA: Record<string, string> = { link: 'the task link', member: 'the dashboard', api: 'the API' };

/** The manual tasks of a request: open ones a member can answer here, answered ones as a person's confirmation. */
export function RequestManualTasks({ deletionRequestId }: { deletionRequestId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tasks = useQuery(trpc.manualTasks.ofRequest.queryOptions({ deletionRequestId }, { refetchInterval: 5_000 }));
  const answer = useMutation(
    trpc.manualTasks.answer.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.manualTasks.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() }),
        ]),
    }),
  );
  if (!tasks.data?.length) return null;
  return (
    <section aria-labelledby="manual-tasks-heading" className="stack">
      <h2 id="manual-tasks-heading">Manual tasks</h2>
      {tasks.data.map((task) => (
        <article key={task.id} className="card stack" aria-label={`Manual task ${task.integrationName}`}>
          <h3>{task.integrationName}</h3>
          <p className="muted">
            Owners: {task.owners.join(', ')} · due {formatDateTime(task.dueAt)}
          </p>
          {task.answeredAt && task.answer ? (
            <p>
              <strong>Confirmed by a person</strong>:{' '}
              {MANUAL_ANSWER_LABEL[task.answer as ManualAnswerKind] ?? task.answer} by {task.answeredBy} through{' '}
              {VIA[task.answeredVia ?? ''] ?? task.answeredVia}, from {task.answeredFrom},{' '}
              {formatDateTime(task.answeredAt)}
              {task.answerNote ? ` — “${task.answerNote}”` : ''}
              {task.evidence ? ` · evidence: ${task.evidence.fileName} (${task.evidence.sizeBytes} bytes)` : ''}
            </p>
          ) : task.open ? (
            <AnswerForm
              pending={answer.isPending}
              error={answer.error ? toDisplayError(answer.error).message : null}
              onAnswer={(submission) => answer.mutate({ id: task.id, ...submission })}
            />
          ) : (
            <p className="muted">Withdrawn (the request was canceled or retried).</p>
          )}
        </article>
      ))}
    </section>
  );
}
