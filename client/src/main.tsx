// First, before React is evaluated: the Requests page's data is asked for at once.
import './lib/early-data';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { createAppRouter } from './app-router';
import './styles.css';

const router = createAppRouter();

// Every signed-in screen first needs to know who is signed in: ask now, while the screen's
// code loads, instead of after it has rendered (one round trip less before the first data).
if (!/^\/(sign-in|sign-up|invite\/)/.test(window.location.pathname)) {
  void import('./query').then(({ prefetchSession }) => prefetchSession());
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
