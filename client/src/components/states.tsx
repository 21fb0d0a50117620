import { useRef, type ReactNode } from 'react';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { toDisplayError } from '../lib/errors';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

/** A failed call, in the server's own words, with a retry button when one makes sense. */
export function ErrorState({
  error,
  onRetry,
  title = 'This could not be loaded',
}: {
  error: unknown;
  onRetry?: () => void;
  title?: string;
}) {
  const { code, message } = toDisplayError(error);
  const root = useRef<HTMLDivElement>(null);
  // The error and its button give way to the content: focus goes to the part of the screen that
  // reloads, not to the page's body once the button is gone.
  const retry = () => {
    const region = root.current?.parentElement?.closest<HTMLElement>('section, main, [role="region"], .card');
    if (region) {
      if (!region.hasAttribute('tabindex')) region.tabIndex = -1;
      region.focus({ preventScroll: true });
    }
    onRetry?.();
  };
  const text =
    code === 'NOT_FOUND'
      ? `${message}. It may have been deleted, or it belongs to another organization.`
      : code === 'FORBIDDEN'
        ? `${message}. Ask an owner or admin of the organization.`
        : message;
  return (
    <div className="state state-error" role="alert" ref={root}>
      <p className="state-title">{title}</p>
      <p>{text}</p>
      {onRetry && code !== 'NOT_FOUND' && code !== 'FORBIDDEN' ? (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function FormError({ message }: { message?: string | null }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}

/** Shown when a route's code fails to load (e.g. after a deploy) or a screen throws. */
export function RouteError() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <main className="centered-page">
      <div className="card narrow">
        <h1>{notFound ? 'Page not found' : 'Something went wrong'}</h1>
        <p>
          {notFound
            ? 'There is nothing at this address.'
            : 'The page failed to load. Reloading usually fixes this after an update.'}
        </p>
        <p className="row">
          <button type="button" className="button" onClick={() => window.location.reload()}>
            Reload
          </button>
          <Link to="/">Go to the overview</Link>
        </p>
      </div>
    </main>
  );
}
