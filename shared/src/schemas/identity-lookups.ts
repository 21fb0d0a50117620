import { z } from 'zod';
import { identifierTypeNameSchema } from '../identifiers';

const name = z.string().trim().min(1, 'Give the lookup a name').max(80);
const timeoutMs = z.number().int().min(100).max(30_000).default(5_000);

/** A lookup that finds a person's other identifiers before the fan-out: SQL on a customer database, Stripe customers, Auth0 users or HubSpot contacts by email, or a webhook. */
export const createIdentityLookupInputSchema = z.discriminatedUnion('kind', [
  z.object({
    workspaceId: z.string().max(64),
    kind: z.literal('sql'),
    name,
    accountId: z.string().max(64),
    query: z.string().trim().min(1).max(4_000).meta({
      description:
        'One SELECT; placeholders such as {{email}} name identifier types and are sent as bound parameters. It runs in a read-only transaction with a statement timeout.',
      example: 'SELECT id AS user_id, stripe_customer_id FROM users WHERE email = {{email}}',
    }),
    columns: z
      .record(z.string().min(1).max(128), identifierTypeNameSchema)
      .refine((columns) => Object.keys(columns).length > 0, 'Map at least one column to an identifier type')
      .meta({ description: 'Result column → identifier type.', example: { user_id: 'user_id' } }),
    timeoutMs,
    maxRows: z.number().int().min(1).max(100).default(10),
  }),
  z.object({
    workspaceId: z.string().max(64),
    kind: z.literal('stripe'),
    name,
    accountId: z.string().max(64).meta({ description: 'A Stripe account (its API key reads customers).' }),
    identifierType: identifierTypeNameSchema.meta({ description: 'The identifier type the customer ids found are.' }),
    baseUrl: z.string().trim().url().max(2_000).optional(),
    maxIdentifiers: z.number().int().min(1).max(50).default(20),
  }),
  z.object({
    workspaceId: z.string().max(64),
    kind: z.literal('auth0'),
    name,
    accountId: z
      .string()
      .max(64)
      .meta({ description: 'An Auth0 account (a machine-to-machine application that may read users).' }),
    domain: z.string().trim().max(253).meta({
      description: "The tenant's own domain, as for the Auth0 integration (not a custom login domain).",
      example: 'acme.eu.auth0.com',
    }),
    identifierType: identifierTypeNameSchema.meta({ description: 'The identifier type the Auth0 user ids found are.' }),
    baseUrl: z.string().trim().url().max(2_000).optional(),
    maxIdentifiers: z.number().int().min(1).max(50).default(20),
  }),
  z.object({
    workspaceId: z.string().max(64),
    kind: z.literal('hubspot'),
    name,
    accountId: z.string().max(64).meta({ description: 'A HubSpot account (its access token reads contacts).' }),
    identifierType: identifierTypeNameSchema.meta({ description: 'The identifier type the contact ids found are.' }),
    baseUrl: z.string().trim().url().max(2_000).optional(),
    maxIdentifiers: z.number().int().min(1).max(50).default(20),
  }),
  z.object({
    workspaceId: z.string().max(64),
    kind: z.literal('webhook'),
    name,
    url: z.string().trim().url().max(2_000),
    timeoutMs,
    maxIdentifiers: z.number().int().min(1).max(50).default(20),
  }),
]);
export type CreateIdentityLookupInput = z.infer<typeof createIdentityLookupInputSchema>;

export const identityLookupSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  position: z.number().int(),
  enabled: z.boolean(),
  accountId: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type IdentityLookupDto = z.infer<typeof identityLookupSchema>;

export const identifierTypeSchema = z.object({ name: z.string(), description: z.string(), builtIn: z.boolean() });
