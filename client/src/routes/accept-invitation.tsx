import { acceptInvitationSignUpSchema } from '@shared/schemas/members';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { TextField } from '../components/field';
import { ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { focusFirstInvalid, formValues, validateForm, type FieldErrors } from '../lib/form';
import { formatDate } from '../lib/format';
import { useTRPC } from '../trpc';

/**
 * The one-time invitation link: join as a new user, or, for an existing account, sign in
 * first (the usual sign-in, with its limits) and come back here to join with one click.
 */
export function Component() {
  const { token = '' } = useParams();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const invitation = useQuery(
    trpc.members.describeInvitation.queryOptions({ token }, { retry: false, staleTime: Infinity }),
  );
  const existingUser = invitation.data?.usable === true && invitation.data.existingUser;
  const me = useQuery(trpc.auth.me.queryOptions(undefined, { retry: false, enabled: existingUser }));
  const accept = useMutation(trpc.members.acceptInvitation.mutationOptions());
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSuccess: () => queryClient.clear() }));
  const [errors, setErrors] = useState<FieldErrors>({});
  useEffect(() => {
    document.title = 'Join an organization · Deletion Requests';
  }, []);
  if (invitation.isPending || (existingUser && me.isPending))
    return (
      <main className="centered-page">
        <Loading label="Checking the invitation…" />
      </main>
    );
  if (invitation.isError || !invitation.data.usable)
    return (
      <main className="centered-page">
        <div className="card narrow">
          {invitation.isError ? (
            <ErrorState title="This invitation cannot be used" error={invitation.error} />
          ) : (
            <div className="state state-error" role="alert">
              <p className="state-title">This invitation cannot be used</p>
              <p>{invitation.data.usable ? null : invitation.data.message}</p>
            </div>
          )}
          <p className="center">
            <Link to="/sign-in">Go to sign in</Link>
          </p>
        </div>
      </main>
    );
  const info = invitation.data;
  const serverError = accept.error ? toDisplayError(accept.error) : null;
  const joined = {
    onSuccess: async () => {
      queryClient.clear();
      await navigate('/', { replace: true });
    },
  };
  if (info.existingUser) {
    const signedInAs = me.data?.user.email;
    const invitationPath = `/invite/${encodeURIComponent(token)}`;
    return (
      <main className="centered-page">
        <div className="card narrow auth-card">
          <h1>Join {info.organizationName}</h1>
          <p className="muted">
            <strong>{info.email}</strong> is invited as{' '}
            <span className={`role role-${info.role.toLowerCase()}`}>{info.role.toLowerCase()}</span>. The link works
            once, until {formatDate(info.expiresAt)}.
          </p>
          {signedInAs === info.email ? (
            <>
              <FormError message={serverError ? serverError.message : null} />
              <button
                type="button"
                className="button button-primary button-block"
                disabled={accept.isPending}
                onClick={() => accept.mutate({ token }, joined)}
              >
                {accept.isPending ? 'Joining…' : `Join ${info.organizationName}`}
              </button>
            </>
          ) : signedInAs ? (
            <>
              <p>
                You are signed in as <strong>{signedInAs}</strong>. Sign out, then sign in as{' '}
                <strong>{info.email}</strong> to join.
              </p>
              <button
                type="button"
                className="button button-block"
                disabled={signOut.isPending}
                onClick={() => signOut.mutate()}
              >
                Sign out
              </button>
            </>
          ) : (
            <>
              <p>You already have an account: sign in with it first, then you can join.</p>
              <Link
                className="button button-primary button-block"
                to={`/sign-in?next=${encodeURIComponent(invitationPath)}`}
              >
                Sign in to join
              </Link>
            </>
          )}
        </div>
      </main>
    );
  }
  return (
    <main className="centered-page">
      <form
        className="card narrow auth-card"
        noValidate
        onInput={(event) => {
          // An error goes as soon as its field has something in it; the next submit checks again.
          const name = (event.target as HTMLInputElement).name;
          if (errors[name] && (event.target as HTMLInputElement).value.trim())
            setErrors(({ [name]: _fixed, ...rest }) => rest);
        }}
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const values = formValues(form);
          const result = validateForm(acceptInvitationSignUpSchema, values);
          if (!result.ok) {
            setErrors(result.errors);
            return focusFirstInvalid(form, result.errors);
          }
          setErrors({});
          accept.mutate({ token, password: result.data.password, name: result.data.name }, joined);
        }}
      >
        <h1>Join {info.organizationName}</h1>
        <p className="muted">
          <strong>{info.email}</strong> is invited as{' '}
          <span className={`role role-${info.role.toLowerCase()}`}>{info.role.toLowerCase()}</span>. The link works
          once, until {formatDate(info.expiresAt)}.
        </p>
        <TextField
          label="Your name"
          name="name"
          autoComplete="name"
          required
          error={errors.name ?? serverError?.fieldErrors.name}
        />
        <TextField
          label="Choose a password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 10 characters."
          error={errors.password ?? serverError?.fieldErrors.password}
        />
        <FormError message={serverError ? serverError.message : null} />
        <button type="submit" className="button button-primary button-block" disabled={accept.isPending}>
          {accept.isPending ? 'Joining…' : 'Create account and join'}
        </button>
      </form>
    </main>
  );
}
