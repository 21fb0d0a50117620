import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { earlyRequestsUrl, UNFILTERED_REQUESTS_INPUT, type EarlyRequestsInput } from '@shared/early-requests';
import { appRouter } from '../routers/root';
import type { ServiceDeps } from '../services/deps';
import { createCallerFactory } from '../trpc/init';
import { createContextFactory, SESSION_COOKIE } from '../trpc/context';
import { requestsPageHtml } from './spa-hints';

/** A tRPC batch's answers, as the browser's app reads them (client/src/lib/early-data.ts). */
type Answers = ({ result: { data: unknown } } | { error: { code: string } })[];

/** The server build of the dashboard's Requests screen (client/src/entry-server.tsx). */
interface ScreenRenderer {
  renderRequestsScreen(input: EarlyRequestsInput, answers: Answers, viewerZone: string | undefined): string;
}

/** The cookie in which the browser names the zone it shows times in (client/src/lib/time-zone.ts). */
const VIEWER_ZONE_COOKIE = 'dds_tz';
/** The element the browser's app reads the answers from (client/src/lib/early-data.ts SERVER_ANSWERS_ID). */
const ANSWERS_ELEMENT = 'early-data';
const EMPTY_ROOT = '<div id="root"></div>';

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

/** JSON inside a <script> element: no "<" can close it or open a comment. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Brotli at a quality that costs about a millisecond for this page, or gzip. */
const compress = {
  br: (body: string) =>
    new Promise<Buffer>((resolve, reject) =>
      zlib.brotliCompress(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }, (error, out) =>
        error ? reject(error) : resolve(out),
      ),
    ),
  gzip: (body: string) =>
    new Promise<Buffer>((resolve, reject) => zlib.gzip(body, (error, out) => (error ? reject(error) : resolve(out)))),
};

function acceptedEncoding(header: string | undefined): keyof typeof compress | null {
  const offered = new Set(
    (header ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !q || !/^\s*q=0(\.0*)?\s*$/.test(q))
      .map(([name]) => name!.toLowerCase()),
  );
  return offered.has('br') ? 'br' : offered.has('gzip') ? 'gzip' : null;
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
 * Signed out, or if anything fails, the page with hints only (spa-hints.ts): the app loads as usual.
 * Null when the dashboard is not built.
 */
export async function createRequestsPage(clientDist: string, clientServerDist: string, deps: ServiceDeps) {
  const hinted = requestsPageHtml(clientDist);
  if (!hinted) return null;
  const renderer = await loadRenderer(clientServerDist).catch((err: unknown) => {
    deps.log.warn({ err }, 'the Requests screen cannot be rendered on the server; the page loads without it');
    return null;
  });
  const dataPreload = `<link rel="preload" as="fetch" crossorigin href="${earlyRequestsUrl(UNFILTERED_REQUESTS_INPUT).replace(/&/g, '&amp;')}">`;
  const context = createContextFactory(deps, 'trpc');

  async function render(request: FastifyRequest, reply: FastifyReply): Promise<string | null> {
    if (!renderer || !request.cookies[SESSION_COOKIE]) return null;
    const caller = createCaller(context({ req: request, res: reply }));
    // All at once: the procedures share the batch's one session lookup (trpc/procedures.ts).
    const [session, ...settled] = await Promise.allSettled([
      caller.auth.session(),
      caller.dashboard.searchRequests(UNFILTERED_REQUESTS_INPUT),
      caller.workspaces.list(),
      caller.dashboard.members(),
    ]);
    if (session.status === 'rejected') throw session.reason;
    if (!session.value) return null; // signed out: the app sends the visitor to sign in
    // As the answers would arrive over HTTP: JSON (dates as ISO strings); a failed one is asked again by the app.
    const json = (value: unknown): { result: { data: unknown } } => ({
      result: { data: JSON.parse(JSON.stringify(value)) },
    });
    const answers: Answers = [
      json(session.value),
      ...settled.map((outcome) =>
        outcome.status === 'fulfilled' ? json(outcome.value) : { error: { code: 'FAILED' } },
      ),
    ];
    const screen = renderer.renderRequestsScreen(
      UNFILTERED_REQUESTS_INPUT,
      answers,
      viewerZone(request.cookies[VIEWER_ZONE_COOKIE]),
    );
    return hinted!
      .replace(dataPreload, '')
      .replace(
        EMPTY_ROOT,
        `<div id="root">${screen}</div>\n    <script type="application/json" id="${ANSWERS_ELEMENT}">${scriptJson(answers)}</script>`,
      );
  }

  return async function send(request: FastifyRequest, reply: FastifyReply) {
    const page = await render(request, reply).catch((err: unknown) => {
      request.log.warn({ err }, 'the Requests screen was not rendered on the server; the page loads without it');
      return null;
    });
    if (!page) return reply.type('text/html').header('Cache-Control', 'no-cache').send(hinted);
    // A rendered page holds the viewer's own data: kept by no cache. Compressed as the static assets are.
    void reply.type('text/html').header('Cache-Control', 'no-store').header('Vary', 'Accept-Encoding');
    const encoding = acceptedEncoding(request.headers['accept-encoding']);
    if (!encoding) return reply.send(page);
    return reply.header('Content-Encoding', encoding).send(await compress[encoding](page));
  };
}
