import { z } from 'zod';
import { accountTypeSchema, integrationTypeSchema } from '@shared/statuses';
import { nameSchema } from '@shared/schemas/auth';
import { router } from '../../trpc/init';
import { adminProcedure } from '../../trpc/procedures';
import {
  createAccount,
  deleteAccount,
  getAccount,
  listAccounts,
  updateAccount,
} from '../../services/accounts/accounts';
import { startOAuthInputSchema } from '@shared/integrations';
import { startOAuthConnection } from '../../services/accounts/oauth-connect';
import { listOAuthProviders } from '../../oauth/providers';

const accountId = z.object({ accountId: z.string().max(64) });

/** Credentials are write-only: no procedure returns them, only hints such as "••••abcd". */
export const accountsRouter = router({
  list: adminProcedure
    .input(z.object({ integrationType: integrationTypeSchema.optional() }).default({}))
    .query(({ ctx, input }) => listAccounts(ctx.prisma, ctx.actor, input)),
  get: adminProcedure.input(accountId).query(({ ctx, input }) => getAccount(ctx.prisma, ctx.actor, input.accountId)),
  create: adminProcedure
    .input(
      z.object({
        name: nameSchema,
        integrationType: integrationTypeSchema,
        type: accountTypeSchema,
        secrets: z.unknown(),
      }),
    )
    .mutation(({ ctx, input }) => createAccount(ctx, ctx.actor, input)),
  /** Renames and/or replaces the credentials. */
  update: adminProcedure
    .input(accountId.extend({ name: nameSchema.optional(), secrets: z.unknown().optional() }))
    .mutation(({ ctx, input }) => updateAccount(ctx, ctx.actor, input)),
  /** OAuth providers this server can connect accounts with (client id and secret configured). */
  oauthProviders: adminProcedure.query(({ ctx }) => listOAuthProviders(ctx.config)),
  /**
   * Starts an OAuth authorization-code flow (state + PKCE): open `authorizationUrl` in the
   * browser; the provider returns to /oauth/callback/<provider>, which stores the account.
   */
  connectOAuth: adminProcedure
    .input(startOAuthInputSchema)
    .mutation(({ ctx, input }) => startOAuthConnection(ctx, ctx.actor, input)),
  /** Refused while integrations use the account. */
  delete: adminProcedure
    .input(accountId)
    .mutation(({ ctx, input }) => deleteAccount(ctx.prisma, ctx.actor, input.accountId)),
});
