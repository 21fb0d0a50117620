import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { toDisplayError } from '../lib/errors';
import { tokenFromHash } from '../lib/link-token';
import { useTRPC } from '../trpc';

/** The page the sign-up verification email links to: confirms the address at once. */
export function Component() {
  const trpc = useTRPC();
  const [token] = useState(() => tokenFromHash(window.location.hash));
  const verify = useMutation(trpc.auth.verifyEmail.mutationOptions());
  useEffect(() => {
    document.title = 'Confirm your email · Deletion Requests';
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
    if (token) verify.mutate({ token });
    // Once, on arrival.
  }, []);
  return (
    <main className="centered-page">
      <div className="card narrow auth-card">
        <h1>Confirm your email</h1>
        {verify.isSuccess ? (
          <p role="status">Your email address is confirmed.</p>
        ) : verify.isError ? (
          <p className="form-error" role="alert">
            {toDisplayError(verify.error).message}
          </p>
        ) : !token ? (
          <p className="form-error" role="alert">
            This link has no token.
          </p>
        ) : (
          <p>Confirming…</p>
        )}
        <p className="muted center">
          <Link to="/">Go to the dashboard</Link>
        </p>
      </div>
    </main>
  );
}
