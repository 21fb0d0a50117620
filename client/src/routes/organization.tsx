import { nameSchema } from '@shared/schemas/auth';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { CopyableValue } from '../components/copy-button';
import { TextField } from '../components/field';
import { useMe } from '../components/me-context';
import { DeadlinesSection } from '../components/organization/deadlines-section';
import { NotificationsSection } from '../components/organization/notifications-section';
import { MembersSection } from '../components/organization/members-section';
import { RetentionSection } from '../components/organization/retention-section';
import { ReverificationSection } from '../components/organization/reverification-section';
import { IdentifierTypesSection } from '../components/organization/identifier-types-section';
import { PageHeader } from '../components/shell';
import { ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { formatDate } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC } from '../trpc';

const renameForm = z.object({ name: nameSchema });

export function Component() {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const me = useMe();
  const queryClient = useQueryClient();
  const organization = useQuery(trpc.organization.get.queryOptions());
  const [saved, setSaved] = useState(false);
  const rename = useMutation(
    trpc.organization.rename.mutationOptions({
      onSuccess: async () => {
        setSaved(true);
        await queryClient.invalidateQueries({ queryKey: trpc.organization.get.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.auth.session.queryKey() });
      },
    }),
  );
  const { errors, onSubmit, onInput } = useFormSubmit(renameForm, (data) => rename.mutate(data));
  const serverError = rename.error ? toDisplayError(rename.error) : null;

  if (organization.isPending)
    return (
      <>
        <PageHeader title="Organization" />
        <Loading />
      </>
    );
  if (organization.isError)
    return (
      <>
        <PageHeader title="Organization" />
        <ErrorState error={organization.error} onRetry={() => void organization.refetch()} />
      </>
    );
  const org = organization.data;
  return (
    <>
      <PageHeader title="Organization" description="Settings shared by everyone in the organization." />
      <section className="card" aria-labelledby="org-general">
        <h2 id="org-general">General</h2>
        {me.isOwner ? (
          <form
            className="inline-form"
            noValidate
            onSubmit={(event) => {
              setSaved(false);
              void onSubmit(event);
            }}
            onInput={onInput}
          >
            <TextField
              key={org.name}
              label="Organization name"
              name="name"
              defaultValue={org.name}
              error={errors.name ?? serverError?.fieldErrors.name}
            />
            <button type="submit" className="button button-primary" disabled={rename.isPending}>
              {rename.isPending ? 'Saving…' : 'Save name'}
            </button>
            {saved ? (
              <span role="status" className="muted">
                Saved
              </span>
            ) : null}
          </form>
        ) : (
          <dl className="facts">
            <div>
              <dt>Name</dt>
              <dd>{org.name}</dd>
            </div>
          </dl>
        )}
        <FormError message={serverError && !serverError.fieldErrors.name ? serverError.message : null} />
        <dl className="facts">
          <div>
            <dt>Organization id</dt>
            <dd>
              <CopyableValue value={org.id} label="Organization id" />
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDate(org.createdAt, zone)}</dd>
          </div>
        </dl>
      </section>

      <RetentionSection organization={org} canEdit={me.isOwner} />
      <ReverificationSection organization={org} canEdit={me.isOwner} />
      <DeadlinesSection canEdit={me.isAdmin} />
      <IdentifierTypesSection canEdit={me.isAdmin} />
      {me.isAdmin ? <NotificationsSection /> : null}
      <MembersSection />
    </>
  );
}
