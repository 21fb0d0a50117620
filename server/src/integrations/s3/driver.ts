import type { S3Config } from '@shared/integrations/object-stores';
import type { Driver, Outcome } from '../types';
import { nextWindowOpening } from '../stores/trail';
import { s3DeleteAndVerify, s3TestConnection } from './execute';

/** Amazon S3 and S3-compatible stores: objects under key templates, every version, verified by listing again. */
export const s3Driver: Driver<S3Config> = {
  type: 'S3',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds to minutes, or at the next maintenance window',
  async requestDeletion(ctx): Promise<Outcome> {
    const opens = nextWindowOpening(ctx.config.maintenanceWindow, ctx.now);
    if (opens) return { kind: 'deferred', until: opens, message: `Scheduled for the maintenance window at ${opens.toISOString()}` };
    return s3DeleteAndVerify(ctx);
  },
  testConnection: (ctx) => s3TestConnection(ctx),
};
