import { signInInputSchema } from '@shared/schemas/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { TextField } from '../components/field';
import { FormError } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { useTRPC } from '../trpc';

/** Only same-site paths are followed after signing in. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function Component() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const signIn = useMutation(trpc.auth.signIn.mutationOptions());
  const { errors, onSubmit } = useFormSubmit(signInInputSchema, (data) =>
    signIn.mutate(data, {
      onSuccess: async () => {
        queryClient.clear();
        await navigate(safeNext(params.get('next')), { replace: true });
      },
    }),
  );
  useEffect(() => {
    document.title = 'Sign in · Deletion Requests';
  }, []);
  const serverError = signIn.error ? toDisplayError(signIn.error) : null;
  return (
    <main className="centered-page">
      <form
        className="card narrow auth-card"
        noValidate
        onSubmit={onSubmit}
      >
        <h1>Sign in</h1>
        <p className="muted">Track and create data deletion requests for your organization.</p>
        <TextField label="Email" name="email" type="email" autoComplete="email" required error={errors.email ?? serverError?.fieldErrors.email} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required error={errors.password} />
        <FormError message={serverError && !Object.keys(serverError.fieldErrors).length ? serverError.message : null} />
        <button type="submit" className="button button-primary button-block" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted center">
          <Link to="/forgot-password">Forgot your password?</Link>
        </p>
        <p className="muted center">
          New here? <Link to="/sign-up">Create an account</Link>
        </p>
      </form>
    </main>
  );
}
