import { z } from 'zod';
import { identifierSchema } from '@shared/schemas/deletion-request';
import { nameSchema } from '@shared/schemas/auth';
import { maxConcurrencySchema, maxRequestsPerSecondSchema } from '@shared/schemas/integration-settings';
import { accountTypeSchema, integrationTypeSchema } from '@shared/statuses';
import { router } from '../../trpc/init';
import { adminProcedure, memberProcedure } from '../../trpc/procedures';
import {
  createIntegration,
  deleteIntegration,
  getIntegration,
  listIntegrations,
  setIntegrationEnabled,
  testIntegrationConnection,
  updateIntegration,
} from '../../services/integrations/integrations';
import type { IntegrationInput } from '../../services/integrations/validate-config';
import {
  discoverWithAccount,
  dryRunWithAccount,
  foreignKeyGraphWithAccount,
} from '../../services/integrations/account-tools';
import { testUnsavedConfiguration } from '../../services/integrations/test-configuration';
import { rotateHashKey } from './rotate-hash-key';

const integrationId = z.object({ integrationId: z.string().max(64) });
const id = z.string().max(64);
/** Most calls to the destination in flight at once, across all worker processes; null: none of its own. */
const maxConcurrency = maxConcurrencySchema.nullish();
/** Most calls to the destination per second, across all worker processes; null: none; absent at creation: the vendor's documented rate. */
const maxRequestsPerSecond = maxRequestsPerSecondSchema.nullish();

export const integrationsRouter = router({
  list: memberProcedure
    .input(z.object({ workspaceId: id.optional() }).default({}))
    .query(({ ctx, input }) => listIntegrations(ctx.prisma, ctx.actor, input)),
  get: memberProcedure
    .input(integrationId)
    .query(({ ctx, input }) => getIntegration(ctx.prisma, ctx.actor, input.integrationId)),
  /** The configuration is validated by the type's schema (shared/src/integrations) and, where the driver has `validateConfig`, against the destination itself (a database's live schema). */
  create: adminProcedure
    .input(
      z.object({
        workspaceId: id,
        name: nameSchema,
        type: integrationTypeSchema,
        accountId: id.nullish(),
        config: z.unknown(),
        enabled: z.boolean().optional(),
        maxConcurrency,
        maxRequestsPerSecond,
      }),
    )
    .mutation(({ ctx, input }) =>
      createIntegration(
        ctx,
        ctx.actor,
        input as IntegrationInput & {
          workspaceId: string;
          maxConcurrency?: number | null;
          maxRequestsPerSecond?: number | null;
        },
      ),
    ),
  update: adminProcedure
    .input(
      integrationId.extend({
        name: nameSchema.optional(),
        config: z.unknown().optional(),
        maxConcurrency,
        maxRequestsPerSecond,
      }),
    )
    .mutation(({ ctx, input }) => updateIntegration(ctx, ctx.actor, input)),
  /** Credential rotation: point the integration at another account of its type. */
  swapAccount: adminProcedure
    .input(integrationId.extend({ accountId: id }))
    .mutation(({ ctx, input }) =>
      updateIntegration(ctx, ctx.actor, { integrationId: input.integrationId, accountId: input.accountId }),
    ),
  setEnabled: adminProcedure
    .input(integrationId.extend({ enabled: z.boolean() }))
    .mutation(({ ctx, input }) => setIntegrationEnabled(ctx.prisma, ctx.actor, input)),
  delete: adminProcedure
    .input(integrationId)
    .mutation(({ ctx, input }) => deleteIntegration(ctx.prisma, ctx.actor, input.integrationId)),
  testConnection: adminProcedure
    .input(integrationId)
    .mutation(({ ctx, input }) => testIntegrationConnection(ctx, ctx.actor, input.integrationId)),
  /**
   * "Test connection" before saving: the form's configuration with a saved account or credentials
   * not saved yet, and a trial run (the driver's dry run, counts only) for a test identifier.
   * Writes nothing; the test identifier is never stored, logged or answered.
   */
  testConfiguration: adminProcedure
    .input(
      z.object({
        type: integrationTypeSchema,
        config: z.unknown(),
        accountId: id.nullish(),
        account: z.object({ type: accountTypeSchema, secrets: z.unknown() }).nullish(),
        trialIdentifier: identifierSchema.nullish(),
      }),
    )
    .mutation(({ ctx, input }) => testUnsavedConfiguration(ctx, ctx.actor, input)),
  /** A new secret key for the SQL `hash` action (owners and admins; also REST); never answered. */
  rotateHashKey,
  /**
   * Tables and columns a data store account can reach, for the rule builder (drivers with
   * `discover`); `config`, where given, tells a warehouse where to look (BigQuery's project and location).
   */
  discoverSchema: adminProcedure
    .input(z.object({ accountId: id, config: z.unknown().optional() }))
    .mutation(({ ctx, input }) => discoverWithAccount(ctx, ctx.actor, input.accountId, input.config)),
  /** Rows each rule would change for an identifier, read-only (drivers with `dryRun`). */
  dryRun: adminProcedure
    .input(z.object({ accountId: id, config: z.unknown(), identifier: identifierSchema }))
    .mutation(({ ctx, input }) => dryRunWithAccount(ctx, ctx.actor, input)),
  /** The tables that reference a table through foreign keys, recursively, with a rule proposed for each (SQL databases). */
  foreignKeyGraph: adminProcedure
    .input(z.object({ accountId: id, schema: z.string().max(128), table: z.string().min(1).max(128) }))
    .mutation(({ ctx, input }) => foreignKeyGraphWithAccount(ctx, ctx.actor, input)),
});
