import fs from 'node:fs';
import path from 'node:path';
import { earlyRequestsUrl, UNFILTERED_REQUESTS_INPUT } from '@shared/early-requests';

/** The modules the Requests screen needs beyond the entry (its route, the signed-in frame, the providers). */
const REQUESTS_MODULES = [
  'src/components/app-providers.tsx',
  'src/components/shell.tsx',
  'src/routes/requests.tsx',
  'src/lib/request-queries.ts',
];

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

/** Every chunk `keys` load, with what they import, from Vite's build manifest (entries excluded: the page loads those). */
function chunksOf(manifest: Record<string, ManifestChunk>, keys: string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    // The entry and what it imports are in the page already.
    if (!chunk || chunk.isEntry || seen.has(key)) return;
    seen.add(key);
    chunk.imports?.forEach(visit);
  };
  keys.forEach(visit);
  return [...seen].map((key) => manifest[key]!.file);
}

/**
 * The HTML of the bare /requests address, with hints that start the screen's work as the page
 * arrives instead of after the app's code has run: a preload of its first data (the same tRPC
 * batch lib/early-data.ts sends, which then takes the preloaded answer) and modulepreloads of
 * the screen's chunks. Null when the build has no manifest. Other addresses (sign-in first)
 * get the plain page, so they load nothing extra.
 */
export function requestsPageHtml(clientDist: string, { preloadData = true } = {}): string | null {
  const manifestFile = path.join(clientDist, '.vite', 'manifest.json');
  const indexFile = path.join(clientDist, 'index.html');
  if (!fs.existsSync(manifestFile) || !fs.existsSync(indexFile)) return null;
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>;
  const html = fs.readFileSync(indexFile, 'utf8');
  const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const hints = [
    // A page that carries its answers (requests-page.ts) preloads none.
    ...(preloadData
      ? [`<link rel="preload" as="fetch" crossorigin href="${escape(earlyRequestsUrl(UNFILTERED_REQUESTS_INPUT))}">`]
      : []),
    // Chunks the page names already (the entry's own imports) are not named twice.
    ...chunksOf(manifest, REQUESTS_MODULES)
      .filter((file) => !html.includes(`/${file}"`))
      .map((file) => `<link rel="modulepreload" crossorigin href="/${escape(file)}">`),
  ];
  // Before the entry script, so the data is asked for first.
  const entry = html.indexOf('<script type="module"');
  return entry === -1 ? null : `${html.slice(0, entry)}${hints.join('\n    ')}\n    ${html.slice(entry)}`;
}
