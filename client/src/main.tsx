// First, before React is evaluated: the Requests page's data is asked for at once.
import './lib/early-data';
import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { createAppRouter } from './app-router';
import { rememberViewerZone } from './lib/time-zone';
import './styles.css';

const router = createAppRouter();
rememberViewerZone();

// Every signed-in screen first needs to know who is signed in: ask now, while the screen's
// code loads, instead of after it has rendered (one round trip less before the first data).
if (!/^\/(sign-in|sign-up|invite\/)/.test(window.location.pathname)) {
  void import('./query').then(({ prefetchSession }) => prefetchSession());
}

/** Marks the page once the app has rendered (and so answers clicks): `html[data-app="ready"]` and a performance mark. */
function Ready() {
  useEffect(() => {
    document.documentElement.setAttribute('data-app', 'ready');
    performance.mark('app-ready');
  }, []);
  return null;
}

const container = document.getElementById('root')!;
const start = () => {
  createRoot(container).render(
    <StrictMode>
      <RouterProvider router={router} />
      <Ready />
    </StrictMode>,
  );
};

// The server may have rendered the screen already (server/src/http/requests-page.ts): it stays
// on view until the router has the screen's code and data, then the app takes its place in one
// step, without a loading state in between.
if (container.hasChildNodes() && !router.state.initialized) {
  const unsubscribe = router.subscribe((state) => {
    if (!state.initialized) return;
    unsubscribe();
    start();
  });
} else start();
