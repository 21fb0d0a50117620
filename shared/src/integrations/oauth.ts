import { z } from 'zod';
import { nameSchema } from '../schemas/auth';
import { integrationTypeSchema, type IntegrationType } from '../statuses';

/** Providers whose accounts are connected with an OAuth authorization-code flow. */
export const OAUTH_PROVIDERS = ['google'] as const;
export const oauthProviderSchema = z.enum(OAUTH_PROVIDERS);
export type OAuthProviderId = z.infer<typeof oauthProviderSchema>;

/** Which provider grants OAUTH accounts of an integration type (types absent here take pasted tokens). */
export const OAUTH_PROVIDER_BY_TYPE: Partial<Record<IntegrationType, OAuthProviderId>> = {
  GOOGLE_ANALYTICS: 'google',
};

/** A dashboard path to come back to after the provider's consent screen. */
const returnToSchema = z
  .string()
  .max(500)
  .regex(/^\/(?![/\\])[^\s]*$/, 'A path on this site, such as /workspaces');

export const startOAuthInputSchema = z
  .object({
    integrationType: integrationTypeSchema,
    /** Name of the account to create. */
    accountName: nameSchema.optional(),
    /** Reconnect: replace the tokens of this existing OAUTH account instead of creating one. */
    accountId: z.string().max(64).optional(),
    returnTo: returnToSchema.optional(),
  })
  .refine((input) => input.accountName || input.accountId, {
    message: 'Name the new account, or pick the account to reconnect',
    path: ['accountName'],
  });
export type StartOAuthInput = z.infer<typeof startOAuthInputSchema>;
