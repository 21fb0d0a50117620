import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { TextField } from '../components/field';
import { FormError } from '../components/states';
import { toDisplayError, type DisplayError } from '../lib/errors';
import { forgetCachedSession, signIn } from '../lib/public-trpc';
import { useFormSubmit } from '../lib/use-form-submit';

/** Only same-site paths are followed after signing in. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

// The schema (and zod) load when the form is first sent: the page itself stays small.
const loadSignInSchema = () => import('@shared/schemas/auth').then((m) => m.signInInputSchema);

export function Component() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [pending, setPending] = useState(false);
  const [serverError, setServerError] = useState<DisplayError | null>(null);
  const { errors, onSubmit, onInput } = useFormSubmit(loadSignInSchema, async (data) => {
    setPending(true);
    setServerError(null);
    try {
      await signIn(data);
      await forgetCachedSession();
      await navigate(safeNext(params.get('next')), { replace: true });
    } catch (error) {
      setServerError(toDisplayError(error));
      setPending(false);
    }
  });
  useEffect(() => {
    document.title = 'Sign in · Deletion Requests';
  }, []);
  return (
    <main className="centered-page">
      <form className="card narrow auth-card" noValidate onSubmit={onSubmit} onInput={onInput}>
        <h1>Sign in</h1>
        <p className="muted">Track and create data deletion requests for your organization.</p>
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={errors.email ?? serverError?.fieldErrors.email}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={errors.password}
        />
        <FormError message={serverError && !Object.keys(serverError.fieldErrors).length ? serverError.message : null} />
        <button type="submit" className="button button-primary button-block" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
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
