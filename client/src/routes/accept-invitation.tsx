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

/** The one-time invitation link: join as a new user, or sign in as the invited existing user. */
export function Component() {
  const { token = '' } = useParams();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const invitation = useQuery(trpc.members.describeInvitation.queryOptions({ token }, { retry: false, staleTime: Infinity }));
  const accept = useMutation(trpc.members.acceptInvitation.mutationOptions());
  const [errors, setErrors] = useState<FieldErrors>({});
  useEffect(() => {
    document.title = 'Join an organization · Deletion Requests';
  }, []);
  if (invitation.isPending)
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
  return (
    <main className="centered-page">
      <form
        className="card narrow auth-card"
        noValidate
        onInput={(event) => {
          // An error goes as soon as its field has something in it; the next submit checks again.
          const name = (event.target as HTMLInputElement).name;
          if (errors[name] && (event.target as HTMLInputElement).value.trim()) setErrors(({ [name]: _fixed, ...rest }) => rest);
        }}
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const values = formValues(form);
          const fail = (found: FieldErrors) => {
            setErrors(found);
            focusFirstInvalid(form, found);
          };
          if (!info.existingUser) {
            const result = validateForm(acceptInvitationSignUpSchema, values);
            if (!result.ok) return fail(result.errors);
          } else if (!values.password) return fail({ password: 'Enter your password' });
          setErrors({});
          accept.mutate(
            { token, password: values.password!, name: info.existingUser ? undefined : values.name },
            {
              onSuccess: async () => {
                queryClient.clear();
                await navigate('/', { replace: true });
              },
            },
          );
        }}
      >
        <h1>Join {info.organizationName}</h1>
        <p className="muted">
          <strong>{info.email}</strong> is invited as <span className={`role role-${info.role.toLowerCase()}`}>{info.role.toLowerCase()}</span>. The link
          works once, until {formatDate(info.expiresAt)}.
        </p>
        {info.existingUser ? (
          <p>You already have an account: sign in with its password to join.</p>
        ) : (
          <TextField label="Your name" name="name" autoComplete="name" required error={errors.name ?? serverError?.fieldErrors.name} />
        )}
        <TextField
          label={info.existingUser ? 'Password' : 'Choose a password'}
          name="password"
          type="password"
          autoComplete={info.existingUser ? 'current-password' : 'new-password'}
          required
          hint={info.existingUser ? undefined : 'At least 10 characters.'}
          error={errors.password ?? serverError?.fieldErrors.password}
        />
        <FormError message={serverError ? serverError.message : null} />
        <button type="submit" className="button button-primary button-block" disabled={accept.isPending}>
          {accept.isPending ? 'Joining…' : info.existingUser ? 'Sign in and join' : 'Create account and join'}
        </button>
      </form>
    </main>
  );
}
