import { createRequestFormSchema } from '@shared/schemas/dashboard';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RequestIdentifierInput } from '@shared/identifiers';
import { useState } from 'react';
import { IdentifierRows } from '../components/identities/identifier-rows';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { SelectField, TextField } from '../components/field';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { useTRPC, type RouterInputs, type RouterOutputs } from '../trpc';
import { DuplicateWarning } from '../components/duplicate-warning';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { startOfViewerDay, viewerToday } from '../lib/viewer-days';

type CreateInput = RouterInputs['deletionRequests']['createInWorkspace'];
type OpenDuplicates = RouterOutputs['dashboard']['openDuplicates'];

export function Component() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const workspaces = useQuery(trpc.workspaces.list.queryOptions());
  const regulations = useQuery(trpc.deadlines.regulations.queryOptions());
  const identifierTypes = useQuery(trpc.identities.listTypes.queryOptions());
  const [others, setOthers] = useState<RequestIdentifierInput[]>([]);
  const zone = useTimeZoneChoice();
  const create = useMutation(
    trpc.deletionRequests.createInWorkspace.mutationOptions({
      onSuccess: async (request) => {
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
        await navigate(`/requests/${request.id}`);
      },
    }),
  );
  // The person's open requests found when the form was sent, and what it would create: shown
  // until the form changes, so a duplicate is created only when asked for.
  const [warning, setWarning] = useState<{ duplicates: OpenDuplicates; payload: CreateInput } | null>(null);
  const [checking, setChecking] = useState<{ error: unknown } | 'busy' | null>(null);
  const checkThenCreate = async (payload: CreateInput) => {
    setChecking('busy');
    try {
      const { identifier, identifierType, identifiers } = payload;
      const duplicates = await queryClient.fetchQuery({
        ...trpc.dashboard.openDuplicates.queryOptions({ identifier, identifierType, identifiers }),
        staleTime: 0,
      });
      setChecking(null);
      if (duplicates.length > 0) setWarning({ duplicates, payload });
      else create.mutate(payload);
    } catch (error) {
      setChecking({ error });
    }
  };
  const { errors, onSubmit, onInput } = useFormSubmit(
    createRequestFormSchema,
    ({ identifierType, ...data }) =>
      void checkThenCreate({
        ...data,
        // The day picked is the viewer's day: sent as the instant it starts in their zone.
        ...(data.receivedAt ? { receivedAt: startOfViewerDay(data.receivedAt, zone) } : {}),
        ...(identifierType ? { identifierType } : {}),
        ...(others.length > 0 ? { identifiers: others.map((o) => ({ type: o.type, value: o.value.trim() })) } : {}),
      }),
    ({ regulation, receivedAt, identifierType, ...values }) => ({
      ...values,
      ...(identifierType ? { identifierType } : {}),
      ...(regulation ? { regulation } : {}),
      ...(receivedAt ? { receivedAt } : {}),
    }),
  );
  const failure = create.error ?? (checking !== null && checking !== 'busy' ? checking.error : null);
  const serverError = failure ? toDisplayError(failure) : null;
  const busy = create.isPending || checking === 'busy';
  const fieldError = (name: string) => errors[name] ?? serverError?.fieldErrors[name];

  let body;
  if (workspaces.isPending) body = <Loading />;
  else if (workspaces.isError) body = <ErrorState error={workspaces.error} onRetry={() => void workspaces.refetch()} />;
  else if (workspaces.data.length === 0)
    body = (
      <Empty title="There is no workspace yet">
        <p>
          A request is sent to the integrations of one workspace. <Link to="/workspaces">Create a workspace</Link>{' '}
          first.
        </p>
      </Empty>
    );
  else
    body = (
      <form
        className="card form narrow-form"
        noValidate
        onSubmit={onSubmit}
        onInput={(event) => {
          setWarning(null);
          onInput(event);
        }}
        onChange={() => setWarning(null)}
      >
        <SelectField
          label="Workspace"
          name="workspaceId"
          defaultValue={params.get('workspace') ?? workspaces.data[0]?.id}
          error={fieldError('workspaceId')}
        >
          {workspaces.data.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Identifier"
          name="identifier"
          autoComplete="off"
          placeholder="jane@example.com"
          hint="The subject whose data is deleted: an email, user id or distinct id. Add the person's other identifiers below."
          error={fieldError('identifier')}
          required
        />
        <SelectField
          label="Type"
          name="identifierType"
          defaultValue=""
          error={fieldError('identifierType')}
          hint="Integrations that consume a type receive only values of that type."
        >
          <option value="">Detect (email when it reads as one)</option>
          {(identifierTypes.data ?? []).map((type) => (
            <option key={type.name} value={type.name}>
              {type.name}
            </option>
          ))}
        </SelectField>
        <IdentifierRows
          types={
            identifierTypes.data ?? [
              { name: 'email', description: '' },
              { name: 'phone', description: '' },
              { name: 'user_id', description: '' },
            ]
          }
          rows={others}
          onChange={(rows) => {
            setWarning(null);
            setOthers(rows);
          }}
          errors={serverError?.fieldErrors ?? {}}
        />
        <SelectField
          label="Regulation"
          name="regulation"
          defaultValue=""
          error={fieldError('regulation')}
          hint="Sets the legal deadline of this request."
        >
          <option value="">The workspace's regulation</option>
          <option value="GDPR">GDPR: one month</option>
          <option value="CCPA">CCPA/CPRA: 45 days</option>
          {(regulations.data?.policies ?? []).map((p) => (
            <option key={p.id} value={p.name}>
              {p.name}: {p.days} days
            </option>
          ))}
        </SelectField>
        <TextField
          label={`Received on (a day in ${zone === 'UTC' ? 'UTC' : 'your time zone'})`}
          name="receivedAt"
          type="date"
          max={viewerToday(zone)}
          hint="When the subject's request reached you, if before today (by email, by post): the deadline runs from that day."
          error={fieldError('receivedAt')}
        />
        <FormError message={serverError && !Object.keys(serverError.fieldErrors).length ? serverError.message : null} />
        {warning ? (
          <DuplicateWarning
            duplicates={warning.duplicates}
            creating={create.isPending}
            onCreateAnyway={() => create.mutate(warning.payload)}
          />
        ) : (
          <div className="form-actions">
            <Link to="/requests" className="button">
              Cancel
            </Link>
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? 'Creating…' : 'Create request'}
            </button>
          </div>
        )}
      </form>
    );

  return (
    <>
      <PageHeader
        title="Create request"
        description="Delete one subject's data from every enabled integration of a workspace."
      />
      {body}
    </>
  );
}
