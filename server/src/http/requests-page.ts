import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PassThrough } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  SERVER_ANSWERS_ID,
  TIMES_CHOICE_COOKIE,
  UNFILTERED_REQUESTS_INPUT,
  VIEWER_ZONE_COOKIE,
  type EarlyAnswers,
  type EarlyRequestsInput,
} from '@shared/early-requests';
import { appRouter } from '../routers/root';
import type { ServiceDeps } from '../services/deps';
import { createCallerFactory } from '../trpc/init';
import { createContextFactory, SESSION_COOKIE } from '../trpc/context';
import { dashboardCsp } from './hardening';
import { requestsPageHtml } from './spa-hints';

/** The server build of the dashboard's Requests screen (client/src/entry-server.tsx). */
interface ScreenRenderer {
  renderRequestsScreen(
    input: EarlyRequestsInput,
    answers: EarlyAnswers,
    viewerZone: string | undefined,
    choice: 'local' | 'UTC',
  ): string;
}

const EMPTY_ROOT = '<div id="root"></div>';
/** The app's entry script and the module preloads of its chunks, as Vite and spa-hints.ts write them. */
const APP_CODE = /\s*<(?:script type="module"[^>]*><\/script|link rel="modulepreload"[^>]*)>/g;

const createCaller = createCallerFactory(appRouter);

function viewerZone(value: string | undefined): string | undefined {
  if (!value || value.length > 64) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value;
  } catch {
    return undefined; // not a zone this runtime knows: times are rendered in UTC, the app shows them in the browser's
  }
}

/**
 * The app's code waits until the server's screen is on screen: the tags that load it sit in a
 * template, and this script adds them to the page once the browser reports its first contentful
 * paint (the frame with the rows, presented), or after the next frame where paint timing is not
 * reported, or after half a second where no frame comes (a background tab). Fetched, compiled and
 * run sooner, the code would take the two threads that draw the rows, and the rows would show later.
 */
const CODE_TEMPLATE_ID = 'app-code';
const CODE_LOADER = `(() => {
  let loaded = false;
  const load = () => {
    if (loaded) return;
    loaded = true;
    for (const tag of document.getElementById('${CODE_TEMPLATE_ID}').content.children) {
      const element = document.createElement(tag.localName);
      for (const { name, value } of tag.attributes) element.setAttribute(name, value);
      document.head.append(element);
    }
  };
  setTimeout(load, 500);
  if (window.PerformanceObserver && (PerformanceObserver.supportedEntryTypes || []).includes('paint'))
    new PerformanceObserver((entries, observer) => {
      if (!entries.getEntriesByName('first-contentful-paint').length) return;
      observer.disconnect();
      setTimeout(load);
    }).observe({ type: 'paint', buffered: true });
  else requestAnimationFrame(() => setTimeout(load));
})();`;
const CODE_LOADER_HASH = `sha256-${createHash('sha256').update(CODE_LOADER).digest('base64')}`;

/** JSON inside a <script> element: no "<" can close it or open a comment. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Brotli at a quality that costs about a millisecond for this page. */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };

function acceptedEncoding(header: string | undefined): 'br' | 'gzip' | null {
  const offered = new Set(
    (header ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !q || !/^\s*q=0(\.0*)?\s*$/.test(q))
      .map(([name]) => name!.toLowerCase()),
  );
  return offered.has('br') ? 'br' : offered.has('gzip') ? 'gzip' : null;
}

/** The page's one stylesheet as an inline element, with the CSP hash that allows it; null if it cannot be inlined. */
function inlineStylesheet(clientDist: string, head: string): { link: string; element: string; hash: string } | null {
  const link = /<link rel="stylesheet"[^>]* href="\/(assets\/[^"]+\.css)">/.exec(head);
  if (!link) return null;
  const css = fs.readFileSync(path.join(clientDist, link[1]!), 'utf8');
  // Relative urls would resolve against the page, not /assets/; "</style" would end the element.
  if (/url\(|<\/style/i.test(css)) return null;
  return {
    link: link[0],
    element: `<style>${css}</style>`,
    hash: `sha256-${createHash('sha256').update(css).digest('base64')}`,
  };
}

async function loadRenderer(clientServerDist: string): Promise<ScreenRenderer | null> {
  const file = path.join(clientServerDist, 'entry-server.js');
  if (!fs.existsSync(file)) return null;
  const module = (await import(pathToFileURL(file).href)) as Partial<ScreenRenderer>;
  return typeof module.renderRequestsScreen === 'function' ? (module as ScreenRenderer) : null;
}

/**
 * The bare /requests address. Signed in, the server answers the page's first tRPC batch itself
 * (the same procedures, as the viewer) and renders the Requests screen's HTML from those answers,
 * so the first rows show as the page arrives, before any script has run; the answers travel in
 * the page, and the browser's app starts from them and takes the screen over (client/src/main.tsx).
 * The page streams: its head (with the stylesheet inline) leaves at once, the screen when rendered,
 * and the app's code after it. Signed out, the answers say so and there is no screen; if anything
 * fails, the page ends as the app's plain page. Without a server build of the screen, the page with
 * hints only (spa-hints.ts). Null when the dashboard is not built.
 */
export async function createRequestsPage(clientDist: string, clientServerDist: string, deps: ServiceDeps) {
  const hinted = requestsPageHtml(clientDist);
  if (!hinted) return null;
  const renderer = await loadRenderer(clientServerDist).catch((err: unknown) => {
    deps.log.warn({ err }, 'the Requests screen cannot be rendered on the server; the page loads without it');
    return null;
  });
  const context = createContextFactory(deps, 'trpc');

  // Without the data preload: a rendered page carries its answers (the app asks for nothing).
  const page = requestsPageHtml(clientDist, { preloadData: false })!;
  const rootAt = page.indexOf(EMPTY_ROOT);
  const pageHead = page.slice(0, rootAt);
  // The stylesheet comes inline (allowed by its hash), so painting the rows waits for no other request.
  const stylesheet = inlineStylesheet(clientDist, pageHead);
  const csp = dashboardCsp(deps.config.PUBLIC_URL.startsWith('https://'), {
    styles: stylesheet ? [stylesheet.hash] : [],
    scripts: [CODE_LOADER_HASH],
  });
  // The app's code is named after the rows and loaded once they have been painted (CODE_LOADER).
  const code = (pageHead.match(APP_CODE) ?? []).map((tag) => tag.trim());
  // The server's markup is inert until the app replaces it: a click or a tick before then would be lost,
  // so the browser holds it (and a test's click waits) until the app's own controls are there.
  const head = `${(stylesheet ? pageHead.replace(stylesheet.link, stylesheet.element) : pageHead).replace(APP_CODE, '')}<div id="root"><div class="server-rendered" inert>`;
  const endOfRoot = '</div></div>'; // closes .server-rendered and #root
  const after = `<template id="${CODE_TEMPLATE_ID}">${code.join('')}</template><script>${CODE_LOADER}</script>${page.slice(rootAt + EMPTY_ROOT.length)}`;
  const answersElement = (answers: EarlyAnswers) =>
    `<script type="application/json" id="${SERVER_ANSWERS_ID}">${scriptJson(answers)}</script>`;

  /**
   * The rest of the page after the head: the screen's HTML and the answers it was rendered from.
   * Signed out, no screen, and answers that say so (the app sends the visitor to sign in without
   * asking the server anything that would only be refused).
   */
  async function rest(request: FastifyRequest, reply: FastifyReply): Promise<string> {
    const json = (value: unknown): { result: { data: unknown } } => ({
      result: { data: JSON.parse(JSON.stringify(value ?? null)) },
    });
    const refused = { error: { code: 'UNAUTHORIZED' } };
    const signedOut = () => `${endOfRoot}\n    ${answersElement([json(null), refused, refused, refused])}${after}`;
    if (!request.cookies[SESSION_COOKIE]) return signedOut();
    const caller = createCaller(context({ req: request, res: reply }));
    // All at once: the procedures share the batch's one session lookup (trpc/procedures.ts).
    const [session, ...settled] = await Promise.allSettled([
      caller.auth.session(),
      caller.dashboard.searchRequests(UNFILTERED_REQUESTS_INPUT),
      caller.workspaces.list(),
      caller.dashboard.members(),
    ]);
    if (session.status === 'rejected') throw session.reason;
    if (!session.value) return signedOut();
    // As the answers would arrive over HTTP: JSON (dates as ISO strings); a failed one is asked again by the app.
    const answers: EarlyAnswers = [
      json(session.value),
      ...settled.map((outcome) =>
        outcome.status === 'fulfilled' ? json(outcome.value) : { error: { code: 'FAILED' } },
      ),
    ];
    const screen = renderer!.renderRequestsScreen(
      UNFILTERED_REQUESTS_INPUT,
      answers,
      viewerZone(request.cookies[VIEWER_ZONE_COOKIE]),
      request.cookies[TIMES_CHOICE_COOKIE] === 'UTC' ? 'UTC' : 'local',
    );
    return `${screen}${endOfRoot}\n    ${answersElement(answers)}${after}`;
  }

  return async function send(request: FastifyRequest, reply: FastifyReply) {
    if (!renderer || rootAt === -1) return reply.type('text/html').header('Cache-Control', 'no-cache').send(hinted);
    // The head goes out at once; the rest follows when rendered. It holds the viewer's own data: kept by no cache.
    const encoding = acceptedEncoding(request.headers['accept-encoding']);
    const body = new PassThrough();
    const encoder =
      encoding === 'br' ? zlib.createBrotliCompress(BROTLI) : encoding === 'gzip' ? zlib.createGzip() : null;
    const sent = encoder ? body.pipe(encoder) : body;
    sent.on('error', () => undefined); // the browser went away
    void reply
      .type('text/html')
      .header('Content-Security-Policy', csp)
      .header('Cache-Control', 'no-store')
      .header('Vary', 'Accept-Encoding');
    if (encoding) void reply.header('Content-Encoding', encoding);
    void reply.send(sent);
    body.write(head);
    encoder?.flush();
    // If anything fails, the page ends as the app's plain page: it loads and asks for its data itself.
    body.end(
      await rest(request, reply).catch((err: unknown) => {
        request.log.warn({ err }, 'the Requests screen was not rendered on the server; the app renders it');
        return `${endOfRoot}${after}`;
      }),
    );
    return reply;
  };
}
