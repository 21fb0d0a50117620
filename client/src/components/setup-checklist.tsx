import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useTRPC, type RouterOutputs } from '../trpc';
import { useMe } from './me-context';
import './setup-checklist.css';

type SetupProgress = RouterOutputs['dashboard']['setupProgress'];

interface Step {
  key: keyof SetupProgress;
  title: string;
  how: ReactNode;
}

const STEPS: Step[] = [
  {
    key: 'workspaceCreated',
    title: 'Create a workspace',
    how: (
      <>
        A workspace groups the systems one product keeps data in. <Link to="/workspaces">Create a workspace</Link>
      </>
    ),
  },
  {
    key: 'integrationTested',
    title: 'Connect an integration and test it',
    how: (
      <>
        Each integration deletes the subject's data in one system; "Test connection" checks it can be reached.{' '}
        <Link to="/integrations">Connect and test an integration</Link>
      </>
    ),
  },
  {
    key: 'firstRequest',
    title: 'Create a first deletion request',
    how: (
      <>
        Try it with a test identifier. <Link to="/requests/new">Create a request</Link>
      </>
    ),
  },
  {
    key: 'teammateInvited',
    title: 'Invite a teammate',
    how: (
      <>
        Someone to share the deadlines with. <Link to="/organization">Invite a member</Link>
      </>
    ),
  },
  {
    key: 'callbackOrToken',
    title: 'Connect your own systems',
    how: (
      <>
        Send requests through the API with a <Link to="/settings/tokens">personal access token</Link>, or hear of their
        progress with a <Link to="/settings/callbacks">callback endpoint</Link>.
      </>
    ),
  },
];

const dismissedKey = (organizationId: string) => `dds.setupDismissed.${organizationId}`;

function storedDismissal(organizationId: string): boolean {
  try {
    return globalThis.localStorage?.getItem(dismissedKey(organizationId)) === '1';
  } catch {
    return false;
  }
}

/**
 * The organization's first steps, each ticked once done (as the server finds it), with a link to
 * where it is done; shown on the Overview until every step is done or someone hides it here
 * (remembered in this browser, for this organization).
 */
export function SetupChecklist() {
  const trpc = useTRPC();
  const me = useMe();
  const [dismissed, setDismissed] = useState(() => storedDismissal(me.organizationId));
  // Asked again on each visit: a step done on another screen a moment ago shows ticked.
  const progress = useQuery({
    ...trpc.dashboard.setupProgress.queryOptions(undefined, { staleTime: 0 }),
    enabled: !dismissed,
  });
  if (dismissed || !progress.data) return null;
  const done = STEPS.filter((step) => progress.data[step.key]).length;
  if (done === STEPS.length) return null;
  const dismiss = () => {
    try {
      globalThis.localStorage?.setItem(dismissedKey(me.organizationId), '1');
    } catch {
      // Storage refused (private mode): hidden until the next visit.
    }
    setDismissed(true);
  };
  return (
    <section className="card setup-checklist" aria-labelledby="setup-checklist">
      <div className="setup-checklist-head">
        <h2 id="setup-checklist">Get started</h2>
        <span className="muted small">
          {done} of {STEPS.length} done
        </span>
      </div>
      <ol className="setup-steps">
        {STEPS.map((step) => {
          const isDone = progress.data[step.key];
          return (
            <li key={step.key} className={isDone ? 'setup-step done' : 'setup-step'} data-step={step.key}>
              <span className="setup-mark" aria-hidden="true">
                {isDone ? '✓' : ''}
              </span>
              <div>
                <strong>{step.title}</strong>
                <span className="visually-hidden">{isDone ? ' (done)' : ' (to do)'}</span>
                {isDone ? null : <p className="muted small">{step.how}</p>}
              </div>
            </li>
          );
        })}
      </ol>
      <button type="button" className="link-button small" onClick={dismiss}>
        Hide this list
      </button>
    </section>
  );
}
