import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { toDisplayError } from '../lib/errors';
import { formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC } from '../trpc';
import { FormError } from './states';

interface Reappeared {
  id: string;
  name: string;
  reappearedAt: string | null;
}

/** Re-verification found the subject's rows again: say where and when, and offer to delete again. */
export function ReappearedPanel({
  deletionRequestId,
  integrationRequests,
}: {
  deletionRequestId: string;
  integrationRequests: Reappeared[];
}) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const zone = useTimeZoneChoice();
  const queryClient = useQueryClient();
  const again = useMutation(
    trpc.deletionRequests.deleteAgain.mutationOptions({
      onSuccess: async ({ deletionRequestId: next }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
        await navigate(`/requests/${next}`);
      },
    }),
  );
  const found = integrationRequests.filter((ir) => ir.reappearedAt);
  if (found.length === 0) return null;
  return (
    <section className="card" aria-label="Data reappeared">
      <h2>Deleted data reappeared</h2>
      <ul>
        {found.map((ir) => (
          <li key={ir.id}>
            {ir.name}: data matching the subject was found again at re-verification on{' '}
            {formatDateTime(ir.reappearedAt!, zone)} (a restored backup, an import?).
          </li>
        ))}
      </ul>
      <button
        type="button"
        className="button button-primary"
        disabled={again.isPending}
        onClick={() => again.mutate({ deletionRequestId })}
      >
        {again.isPending ? 'Creating…' : 'Delete again'}
      </button>
      <FormError message={again.error ? toDisplayError(again.error).message : null} />
    </section>
  );
}
