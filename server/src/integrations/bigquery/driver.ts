import { bigqueryPlaceSchema, type BigqueryConfig } from '@shared/integrations/bigquery';
import { PermanentError, type AdminContext, type DiscoveredTable, type Driver } from '../types';
import { serviceAccountKey } from './auth';
import { inMaintenanceWindow, statementsOf } from '../stores/trail';
import {
  bigqueryDeleteAndVerify,
  bigqueryDryRun,
  bigqueryReverify,
  discoverTables,
  validateBigqueryRules,
} from './execute';
import { bigqueryJobs, datasetLocations } from './jobs';

/**
 * What discovery reads: the project and location of the integration when a configuration is at
 * hand; for an account alone, the key's own project in every location where it has datasets.
 */
async function discover(ctx: Omit<AdminContext, 'config'> & { config?: unknown }): Promise<DiscoveredTable[]> {
  const given = bigqueryPlaceSchema.safeParse(ctx.config);
  if (given.success) return discoverTables(bigqueryJobs({ ...ctx, config: given.data, identifier: null }), given.data);
  const projectId = serviceAccountKey(ctx.secrets).project_id;
  if (!projectId) throw new PermanentError('The service account key names no project_id');
  const place = bigqueryPlaceSchema.parse({ projectId, location: 'US' });
  const tables: DiscoveredTable[] = [];
  for (const location of await datasetLocations(bigqueryJobs({ ...ctx, config: place, identifier: null })))
    tables.push(
      ...(await discoverTables(bigqueryJobs({ ...ctx, config: { ...place, location }, identifier: null }), {
        ...place,
        location,
      })),
    );
  return tables;
}

/**
 * Google BigQuery: the SQL rules as parameterised GoogleSQL query jobs over the REST API v2,
 * each first dry-run against the integration's byte ceiling, verified after the jobs.
 */
export const bigqueryDriver: Driver<BigqueryConfig> = {
  type: 'BIGQUERY',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds to minutes, or at the next maintenance window',
  requestDeletion: (ctx) => inMaintenanceWindow(ctx, () => bigqueryDeleteAndVerify(ctx)),
  validateConfig: (ctx) => validateBigqueryRules({ ...ctx, identifier: null }),
  discover,
  dryRun: async (ctx) => ({ rules: await bigqueryDryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => bigqueryReverify(ctx),
  async testConnection(ctx) {
    try {
      const jobs = bigqueryJobs({ ...ctx, identifier: null });
      await jobs.query({ text: 'SELECT 1', values: [] }, { rows: true });
      return { ok: true, message: `Connected: project ${ctx.config.projectId}, location ${ctx.config.location}` };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
