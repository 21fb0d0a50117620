import { passwordSchema } from '@shared/schemas/auth';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { z } from 'zod';
import { TextField } from '../components/field';
import { FormError } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { tokenFromHash } from '../lib/link-token';
import { useFormSubmit } from '../lib/use-form-submit';
import { useTRPC } from '../trpc';

const schema = z.object({ password: passwordSchema });

/** The page a password reset email links to. */
export function Component() {
  const trpc = useTRPC();
  const [token] = useState(() => tokenFromHash(window.location.hash));
  const reset = useMutation(trpc.auth.resetPassword.mutationOptions());
  const { errors, onSubmit } = useFormSubmit(schema, (data) => reset.mutate({ token, password: data.password }));
  useEffect(() => {
    document.title = 'Choose a new password · Deletion Requests';
    // The token has been read: keep it out of the history.
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
  }, []);
  const serverError = reset.error ? toDisplayError(reset.error) : null;
  return (
    <main className="centered-page">
      <form className="card narrow auth-card" noValidate onSubmit={onSubmit}>
        <h1>Choose a new password</h1>
        {reset.isSuccess ? (
          <p role="status">
            Your password was changed and every session was signed out. <Link to="/sign-in">Sign in</Link> with the new
            one.
          </p>
        ) : !token ? (
          <p className="form-error" role="alert">
            This link has no token. <Link to="/forgot-password">Ask for a new link</Link>.
          </p>
        ) : (
          <>
            <TextField
              label="New password"
              name="password"
              type="password"
              autoComplete="new-password"
              required
              error={errors.password ?? serverError?.fieldErrors.password}
              hint="At least 10 characters."
            />
            <FormError message={serverError && !serverError.fieldErrors.password ? serverError.message : null} />
            <button type="submit" className="button button-primary button-block" disabled={reset.isPending}>
              {reset.isPending ? 'Saving…' : 'Set new password'}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
