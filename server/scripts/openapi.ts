/**
 * The OpenAPI document and the typed partner client generated from it.
 *   tsx server/scripts/openapi.ts generate   writes shared/src/partner-client/{openapi.json,schema.ts}
 *   tsx server/scripts/openapi.ts check      fails when either differs from what the procedures generate now
 *   tsx server/scripts/openapi.ts lint       Redocly CLI's recommended rules: fails on any error or warning
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DOCUMENT_FILE,
  DIR,
  SCHEMA_FILE,
  generatePartnerClient as generate,
  stalePartnerClientFiles,
} from '../src/http/partner-client-files';

const [command] = process.argv.slice(2);
const { json, schema } = await generate();
if (command === 'generate') {
  fs.mkdirSync(DIR, { recursive: true });
  fs.writeFileSync(DOCUMENT_FILE, json);
  fs.writeFileSync(SCHEMA_FILE, schema);
  console.log(`wrote ${path.relative(process.cwd(), DOCUMENT_FILE)} and ${path.relative(process.cwd(), SCHEMA_FILE)}`);
} else if (command === 'check') {
  const stale = await stalePartnerClientFiles();
  for (const name of stale)
    console.error(
      `${path.relative(process.cwd(), name)} does not match the procedures; run \`npm run openapi:generate\` and commit it`,
    );
  if (stale.length > 0) process.exit(1);
  console.log('OpenAPI document and partner client types match the procedures');
} else if (command === 'lint') {
  // The document next to its lint ignore file (the few accepted problems, each with its reason).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  fs.writeFileSync(path.join(dir, 'openapi.json'), json);
  fs.copyFileSync(path.join(DIR, '.redocly.lint-ignore.yaml'), path.join(dir, '.redocly.lint-ignore.yaml'));
  const run = spawnSync(
    path.resolve(import.meta.dirname, '../../node_modules/.bin/redocly'),
    ['lint', 'openapi.json', '--extends', 'recommended', '--format', 'json'],
    { encoding: 'utf8', cwd: dir },
  );
  const report = JSON.parse(run.stdout || '{}') as {
    totals?: { errors: number; warnings: number; ignored?: number };
    problems?: { ruleId: string; message: string; location?: { pointer?: string }[] }[];
  };
  if (!report.totals) {
    console.error(run.stderr);
    process.exit(1);
  }
  for (const problem of report.problems ?? [])
    console.error(`${problem.ruleId}: ${problem.message} at ${problem.location?.[0]?.pointer ?? ''}`);
  console.log(
    `Redocly lint (recommended): ${report.totals.errors} error(s), ${report.totals.warnings} warning(s), ${report.totals.ignored ?? 0} accepted in ${path.relative(process.cwd(), DIR)}/.redocly.lint-ignore.yaml`,
  );
  if (report.totals.errors + report.totals.warnings > 0) process.exit(1);
} else {
  console.error('usage: openapi.ts generate | check | lint');
  process.exit(64);
}
