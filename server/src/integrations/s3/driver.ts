import type { S3Config } from '@shared/integrations/object-stores';
import type { Driver } from '../types';
import { inMaintenanceWindow, statementsOf } from '../stores/trail';
import {
  closeS3Clients,
  s3DeleteAndVerify,
  s3DryRun,
  s3ListBuckets,
  s3Reverify,
  s3TestConnection,
  validateS3Config,
} from './execute';

/** Amazon S3 and S3-compatible stores: objects under key templates, every version, verified by listing again. */
export const s3Driver: Driver<S3Config> = {
  type: 'S3',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds to minutes, or at the next maintenance window',
  requestDeletion: (ctx) => inMaintenanceWindow(ctx, () => s3DeleteAndVerify(ctx)),
  validateConfig: (ctx) => validateS3Config(ctx),
  // The buckets these credentials can list, each as a "table" without columns.
  discover: async (ctx) => (await s3ListBuckets(ctx)).map((bucket) => ({ schema: '', table: bucket, columns: [] })),
  dryRun: async (ctx) => ({ rules: await s3DryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => s3Reverify(ctx),
  testConnection: (ctx) => s3TestConnection(ctx),
  close: closeS3Clients,
};
