import { signUpInputSchema } from '@shared/schemas/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate } from 'react-router';
import { TextField } from '../components/field';
import { FormError } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { useTRPC } from '../trpc';

export function Component() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signUp = useMutation(trpc.auth.signUp.mutationOptions());
  const { errors, onSubmit, onInput } = useFormSubmit(signUpInputSchema, (data) =>
    signUp.mutate(data, {
      onSuccess: async () => {
        queryClient.clear();
        await navigate('/', { replace: true });
      },
    }),
  );
  useEffect(() => {
    document.title = 'Create an account · Deletion Requests';
  }, []);
  const serverError = signUp.error ? toDisplayError(signUp.error) : null;
  const fieldError = (name: string) => errors[name] ?? serverError?.fieldErrors[name];
  return (
    <main className="centered-page">
      <form className="card narrow auth-card" noValidate onSubmit={onSubmit} onInput={onInput}>
        <h1>Create an account</h1>
        <p className="muted">You will own a new organization; invite your team once it exists.</p>
        <TextField label="Your name" name="name" autoComplete="name" required error={fieldError('name')} />
        <TextField
          label="Work email"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={fieldError('email')}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 10 characters."
          error={fieldError('password')}
        />
        <TextField
          label="Organization name"
          name="organizationName"
          autoComplete="organization"
          required
          error={fieldError('organizationName')}
        />
        <FormError message={serverError && !Object.keys(serverError.fieldErrors).length ? serverError.message : null} />
        <button type="submit" className="button button-primary button-block" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating…' : 'Create account'}
        </button>
        <p className="muted center">
          Already have an account? <Link to="/sign-in">Sign in</Link>
        </p>
      </form>
    </main>
  );
}
