/**
 * `npm run bench`: measures the service against same-run baselines on the same database
 * and writes bench/results.json. `--smoke` runs every scenario for a second or so;
 * `--only=create,list` picks scenarios. Load goes to 127.0.0.1 only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCluster } from './lib/database';
import { printComparison, type Comparison } from './lib/report';
import { createScenario } from './scenarios/create';
import { listScenario } from './scenarios/list';
import { pipelineScenario } from './scenarios/pipeline';
import { lookupsScenario } from './scenarios/lookups';
import { dashboardScenario } from './scenarios/dashboard';
import { exportScenario } from './scenarios/export';
import { storageScenario } from './scenarios/storage';
import { readSettings } from './settings';

const settings = readSettings(process.argv.slice(2));
const started = Date.now();

function machine() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  return {
    nproc: os.availableParallelism(),
    cpuModel: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
}

const cluster = await startCluster();
const results: Comparison[] = [];
const notes: string[] = [];
let failed = false;
try {
  const scenarios: [string, () => Promise<Comparison[]>][] = [
    ['create', () => createScenario(cluster, settings)],
    ['list', () => listScenario(cluster, settings)],
    ['pipeline', () => pipelineScenario(cluster, settings)],
    ['lookups', () => lookupsScenario(cluster, settings)],
    ['dashboard', () => dashboardScenario(cluster, settings, notes)],
    ['export', () => exportScenario(cluster, settings)],
    ['storage', () => storageScenario(cluster, settings)],
  ];
  for (const [name, run] of scenarios) {
    if (!settings.scenarios.has(name)) continue;
    process.stdout.write(`--- ${name}\n`);
    const comparisons = await run();
    for (const c of comparisons) printComparison(c);
    results.push(...comparisons);
  }
} catch (error) {
  failed = true;
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
} finally {
  await cluster.stop();
}

const report = {
  when: new Date().toISOString(),
  machine: machine(),
  database: cluster.embedded ? 'embedded PostgreSQL' : 'DATABASE_URL',
  settings: { ...settings, scenarios: [...settings.scenarios] },
  seconds: Math.round((Date.now() - started) / 1000),
  results,
  notes,
};
const out = path.join(import.meta.dirname, settings.smoke ? 'results.smoke.json' : 'results.json');
fs.writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
for (const note of notes) process.stdout.write(`note: ${note}\n`);
process.stdout.write(
  `${results.filter((r) => r.met).length}/${results.length} targets met in ${report.seconds} s; written to ${path.relative(process.cwd(), out)}\n`,
);
process.exit(failed ? 1 : 0);
