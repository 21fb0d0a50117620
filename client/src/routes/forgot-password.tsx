import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { z } from 'zod';
import { emailSchema } from '@shared/schemas/auth';
import { TextField } from '../components/field';
import { FormError } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { useTRPC } from '../trpc';

const schema = z.object({ email: emailSchema });

/** "Forgot password": the same answer whether or not the address has an account. */
export function Component() {
  const trpc = useTRPC();
  const capabilities = useQuery(trpc.auth.capabilities.queryOptions());
  const request = useMutation(trpc.auth.requestPasswordReset.mutationOptions());
  const { errors, onSubmit } = useFormSubmit(schema, (data) => request.mutate(data));
  useEffect(() => {
    document.title = 'Reset your password · Deletion Requests';
  }, []);
  const serverError = request.error ? toDisplayError(request.error) : null;
  return (
    <main className="centered-page">
      <form className="card narrow auth-card" noValidate onSubmit={onSubmit}>
        <h1>Reset your password</h1>
        {capabilities.data && !capabilities.data.emailEnabled ? (
          // Without SMTP nothing can be mailed: say only that, and who can help.
          <p className="form-error" role="alert">
            This server sends no email (SMTP is not configured), so it cannot mail a reset link. Whoever runs the server
            can set a new password with <code>npm run cli -- user:reset-password</code>.
          </p>
        ) : request.isSuccess ? (
          <p role="status">
            If an account uses this address, we have sent it a link to choose a new password. It works once, for one
            hour.
          </p>
        ) : (
          <>
            <p className="muted">Enter the email you sign in with; we will mail you a link.</p>
            <TextField label="Email" name="email" type="email" autoComplete="email" required error={errors.email} />
            <FormError message={serverError?.message ?? null} />
            <button type="submit" className="button button-primary button-block" disabled={request.isPending}>
              {request.isPending ? 'Sending…' : 'Send reset link'}
            </button>
          </>
        )}
        <p className="muted center">
          <Link to="/sign-in">Back to sign in</Link>
        </p>
      </form>
    </main>
  );
}
