import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { errorCode } from '../lib/errors';
import { setTimeZoneChoice } from '../lib/time-zone';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { SESSION_QUERY_OPTIONS, useTRPC } from '../trpc';
import { MeContext, useMe } from './me-context';
import { ErrorState, Loading } from './states';

/** The signed-in frame: who and where you are, navigation, and the current screen. */
export function Component() {
  const trpc = useTRPC();
  const location = useLocation();
  // null when signed out: an answer, so a signed-out visit leaves no error in the console.
  const me = useQuery(trpc.auth.session.queryOptions(undefined, SESSION_QUERY_OPTIONS));
  if (me.isPending) return <Loading label="Loading your dashboard…" />;
  if (me.data === null || errorCode(me.error) === 'UNAUTHORIZED') {
    const next = location.pathname + location.search;
    return <Navigate to={next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  if (me.isError) {
    return (
      <main className="centered-page">
        <ErrorState error={me.error} onRetry={() => void me.refetch()} />
      </main>
    );
  }
  return (
    <MeContext value={me.data}>
      <FocusStart />
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="shell">
        <Header />
        <Sidebar />
        <main id="main" className="content" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </MeContext>
  );
}

/**
 * Where the next Tab starts when a screen replaced the element that had focus (the sign-in
 * button, a page reloaded): at the top, so the first Tab reaches "Skip to content", not
 * whatever now sits where that element was.
 */
function FocusStart() {
  const location = useLocation();
  const start = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    // Kept there (an empty, unlabelled stop outside the Tab order): a blur would hand the start back to the browser.
    start.current?.focus({ preventScroll: true });
  }, [location.pathname]);
  return <span ref={start} tabIndex={-1} className="focus-start" />;
}

function Header() {
  const me = useMe();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const switchId = useId();
  const switchOrganization = useMutation(
    trpc.auth.switchOrganization.mutationOptions({
      onSuccess: async () => {
        // Everything on screen belonged to the previous organization.
        queryClient.clear();
        await navigate('/');
      },
    }),
  );
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSettled: async () => {
        queryClient.clear();
        await navigate('/sign-in');
      },
    }),
  );
  const active = me.organizations.find((o) => o.id === me.organizationId);
  return (
    <header className="topbar">
      <NavLink to="/" className="brand">
        <span className="brand-mark" aria-hidden="true">
          ⌫
        </span>
        <span className="brand-name">Deletion Requests</span>
      </NavLink>
      <div className="org-switcher">
        {me.organizations.length > 1 ? (
          <>
            <label htmlFor={switchId} className="visually-hidden">
              Organization
            </label>
            <select
              id={switchId}
              title={active?.name}
              value={me.organizationId}
              disabled={switchOrganization.isPending}
              onChange={(event) => switchOrganization.mutate({ organizationId: event.target.value })}
            >
              {me.organizations.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name} ({o.role.toLowerCase()})
                </option>
              ))}
            </select>
          </>
        ) : (
          <span className="org-name" title={active?.name}>
            {active?.name}
          </span>
        )}
        <span className={`role role-${me.role.toLowerCase()}`}>{me.role.toLowerCase()}</span>
      </div>
      <div className="user-menu">
        <TimeZoneToggle />
        <span className="user-name" title={me.user.email}>
          {me.user.name}
        </span>
        <button
          type="button"
          className="button button-small"
          onClick={() => signOut.mutate()}
          disabled={signOut.isPending}
        >
          Sign out
        </button>
      </div>
    </header>
  );
}

/** Times in the viewer's zone or in UTC, everywhere (audit entries are compared across teams). */
function TimeZoneToggle() {
  const zone = useTimeZoneChoice();
  return (
    <button
      type="button"
      className="button button-small time-zone-toggle"
      aria-pressed={zone === 'UTC'}
      title={
        zone === 'UTC'
          ? 'Times are shown in UTC: show them in your time zone'
          : 'Times are shown in your time zone: show them in UTC'
      }
      onClick={() => setTimeZoneChoice(zone === 'UTC' ? 'local' : 'UTC')}
    >
      {zone === 'UTC' ? 'Times: UTC' : 'Times: local'}
    </button>
  );
}

function Sidebar() {
  const me = useMe();
  const location = useLocation();
  useEffect(() => {
    document.getElementById('main')?.scrollTo?.(0, 0);
    // On a phone the navigation is one scrolling row: keep the current screen's tab in view.
    document.querySelector('.sidebar a.active')?.scrollIntoView?.({ block: 'nearest', inline: 'center' });
  }, [location.pathname]);
  return (
    <nav className="sidebar" aria-label="Main">
      <ul>
        <li>
          <NavLink to="/" end>
            Overview
          </NavLink>
        </li>
        <li>
          <NavLink to="/requests">Requests</NavLink>
        </li>
        <li>
          <NavLink to="/workspaces">Workspaces</NavLink>
        </li>
        <li>
          <NavLink to="/integrations">Integrations</NavLink>
        </li>
        {me.isAdmin ? (
          <li>
            <NavLink to="/accounts">Accounts</NavLink>
          </li>
        ) : null}
        <li className="nav-section">Settings</li>
        <li>
          <NavLink to="/organization" end>
            Organization
          </NavLink>
        </li>
        {me.isAdmin ? (
          <li>
            <NavLink to="/organization/audit-log">Audit log</NavLink>
          </li>
        ) : null}
        <li>
          <NavLink to="/settings/tokens">Access tokens</NavLink>
        </li>
        {me.isAdmin ? (
          <li>
            <NavLink to="/settings/callbacks">Callbacks</NavLink>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}

/** `documentTitle` replaces `title` in the browser's title bar (and history) when the heading shows personal data. */
export function PageHeader({
  title,
  documentTitle,
  description,
  actions,
}: {
  title: React.ReactNode;
  documentTitle?: string;
  description?: string;
  actions?: React.ReactNode;
}) {
  const windowTitle = documentTitle ?? (typeof title === 'string' ? title : '');
  useEffect(() => {
    document.title = `${windowTitle} · Deletion Requests`;
  }, [windowTitle]);
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {description ? <p className="muted">{description}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </div>
  );
}
