import type { BenchCluster } from '../lib/database';
import type { Comparison } from '../lib/report';
import type { BenchSettings } from '../settings';

export async function dashboardScenario(_cluster: BenchCluster, _settings: BenchSettings, notes: string[]): Promise<Comparison[]> {
  notes.push('dashboard: not measured yet');
  return [];
}
