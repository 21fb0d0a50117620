import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { earlyRequestsUrl, UNFILTERED_REQUESTS_INPUT } from '@shared/early-requests';
import { requestsPageHtml } from './spa-hints';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function dist(manifest: unknown | null): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-dist-'));
  dirs.push(dir);
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html>\n<html>\n  <head>\n    <title>Deletion Requests</title>\n    <script type="module" crossorigin src="/assets/index-A.js"></script>\n  </head>\n  <body><div id="root"></div></body>\n</html>\n',
  );
  if (manifest) {
    fs.mkdirSync(path.join(dir, '.vite'));
    fs.writeFileSync(path.join(dir, '.vite', 'manifest.json'), JSON.stringify(manifest));
  }
  return dir;
}

describe('the Requests page hints', () => {
  it("preloads the first data and modulepreloads the screen's chunks with what they import, never the entry or other screens", () => {
    const html = requestsPageHtml(
      dist({
        'index.html': { file: 'assets/index-A.js', isEntry: true, imports: ['_shared.js'] },
        '_shared.js': { file: 'assets/shared-B.js' },
        'src/components/app-providers.tsx': { file: 'assets/app-providers-C.js', imports: ['index.html', '_trpc.js'] },
        '_trpc.js': { file: 'assets/trpc-D.js', imports: ['_shared.js'] },
        'src/components/shell.tsx': { file: 'assets/shell-E.js', imports: ['index.html'] },
        'src/routes/requests.tsx': { file: 'assets/requests-F.js', imports: ['_trpc.js'] },
        'src/lib/request-queries.ts': { file: 'assets/request-queries-G.js' },
        'src/routes/organization.tsx': { file: 'assets/organization-H.js', imports: ['_schemas.js'] },
        '_schemas.js': { file: 'assets/schemas-I.js' },
      }),
    )!;
    const links = [...html.matchAll(/<link rel="(\w+)"(?: as="(\w+)")? crossorigin href="([^"]+)">/g)].map(
      ([, rel, as, href]) => [rel, as ?? null, href],
    );
    const dataUrl = earlyRequestsUrl(UNFILTERED_REQUESTS_INPUT).replace(/&/g, '&amp;');
    expect(links).toEqual([
      ['preload', 'fetch', dataUrl],
      ...['app-providers-C', 'trpc-D', 'shared-B', 'shell-E', 'requests-F', 'request-queries-G'].map((name) => [
        'modulepreload',
        null,
        `/assets/${name}.js`,
      ]),
    ]);
    // Before the entry script, which stays as it was.
    expect(html.indexOf('rel="preload"')).toBeLessThan(html.indexOf('<script type="module"'));
    expect(html).toContain('<script type="module" crossorigin src="/assets/index-A.js"></script>');
  });

  it('leaves the data preload out for a page that carries its answers', () => {
    const html = requestsPageHtml(
      dist({
        'index.html': { file: 'assets/index-A.js', isEntry: true },
        'src/routes/requests.tsx': { file: 'assets/requests-F.js' },
      }),
      { preloadData: false },
    )!;
    expect(html).not.toContain('rel="preload"');
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/requests-F.js">');
  });

  it('gives no page when the build wrote no manifest (the plain page is served)', () => {
    expect(requestsPageHtml(dist(null))).toBeNull();
  });
});
