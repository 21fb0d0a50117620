import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { useTRPC, type RouterOutputs } from '../../trpc';
import { FormError } from '../states';
import { AccountChooser } from './account-chooser';

type Integration = RouterOutputs['integrations']['get'];

/** Credential rotation: point the integration at another account of its type (or a new one). */
export function SwapAccount({
  integration,
  onSwapped,
}: {
  integration: Integration;
  onSwapped: (accountId: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<string | null>(integration.accountId);
  const swap = useMutation(
    trpc.integrations.swapAccount.mutationOptions({
      onSuccess: async (updated) => {
        onSwapped(updated.accountId!);
        await queryClient.invalidateQueries({
          queryKey: trpc.integrations.get.queryKey({ integrationId: integration.id }),
        });
        await queryClient.invalidateQueries({ queryKey: trpc.integrations.list.queryKey() });
      },
    }),
  );
  const error = swap.error ? toDisplayError(swap.error) : null;
  return (
    <div>
      <p>
        Uses <strong>{integration.account?.name ?? 'no account'}</strong>. Swapping applies to requests in flight too.
      </p>
      <AccountChooser
        integrationType={integration.type}
        value={target}
        onChange={setTarget}
        label="Swap to account"
        error={error?.fieldErrors.accountId}
      />
      <button
        type="button"
        className="button"
        disabled={!target || target === integration.accountId || swap.isPending}
        onClick={() => target && swap.mutate({ integrationId: integration.id, accountId: target })}
      >
        {swap.isPending ? 'Swapping…' : 'Swap account'}
      </button>
      <FormError message={error && !error.fieldErrors.accountId ? error.message : null} />
      {swap.isSuccess ? (
        <p role="status" className="muted small">
          Now using {swap.data.account?.name}.
        </p>
      ) : null}
    </div>
  );
}
