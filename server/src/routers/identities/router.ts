import { z } from 'zod';
import { identifierTypeNameSchema } from '@shared/identifiers';
import {
  createIdentityLookupInputSchema,
  identifierTypeSchema,
  identityLookupSchema,
} from '@shared/schemas/identity-lookups';
import { router } from '../../trpc/init';
import { adminProcedure, memberProcedure } from '../../trpc/procedures';
import {
  createIdentifierType,
  deleteIdentifierType,
  listIdentifierTypes,
  setIntegrationConsumesType,
} from '../../services/identities/identifier-types';
import { listRequestIdentifiers, revealRequestIdentifier } from '../../services/identities/request-identifiers';
import {
  createIdentityLookup,
  deleteIdentityLookup,
  listIdentityLookups,
} from '../../services/identities/identity-lookups';

/** A person's identifiers: the organization's identifier types, and each workspace's identity lookups. */
export const identitiesRouter = router({
  /** Every member sees the types (the create form offers them). */
  listTypes: memberProcedure
    .input(z.object({}).optional())
    .output(z.array(identifierTypeSchema))
    .query(({ ctx }) => listIdentifierTypes(ctx.prisma, ctx.actor)),
  createType: adminProcedure
    .input(z.object({ name: identifierTypeNameSchema, description: z.string().trim().max(200).optional() }))
    .output(identifierTypeSchema)
    .mutation(({ ctx, input }) => createIdentifierType(ctx.prisma, ctx.actor, input)),
  deleteType: adminProcedure
    .input(z.object({ name: identifierTypeNameSchema }))
    .output(z.object({ name: z.string() }))
    .mutation(({ ctx, input }) => deleteIdentifierType(ctx.prisma, ctx.actor, input.name)),
  /** A request's identifiers, masked, with where each came from. */
  requestIdentifiers: memberProcedure
    .meta({ scope: 'requests:read' })
    .input(z.object({ deletionRequestId: z.string().max(64) }))
    .query(({ ctx, input }) => listRequestIdentifiers(ctx.prisma, ctx.keyring, ctx.actor, input.deletionRequestId)),
  /** One of them in full; every reveal is audited. */
  revealRequestIdentifier: memberProcedure
    .meta({ scope: 'requests:read' })
    .input(z.object({ deletionRequestId: z.string().max(64), identifierId: z.string().max(64) }))
    .mutation(({ ctx, input }) => revealRequestIdentifier(ctx.prisma, ctx.actor, input)),
  /** The identifier type whose values an integration receives (null: the request's primary identifier). */
  setIntegrationType: adminProcedure
    .input(z.object({ integrationId: z.string().max(64), consumesType: identifierTypeNameSchema.nullable() }))
    .output(z.object({ integrationId: z.string(), consumesType: z.string().nullable() }))
    .mutation(({ ctx, input }) => setIntegrationConsumesType(ctx.prisma, ctx.actor, input)),
  listLookups: adminProcedure
    .input(z.object({ workspaceId: z.string().max(64) }))
    .output(z.array(identityLookupSchema))
    .query(({ ctx, input }) => listIdentityLookups(ctx.prisma, ctx.actor, input.workspaceId)),
  /** A webhook lookup's signing secret is in this answer only. */
  createLookup: adminProcedure
    .input(createIdentityLookupInputSchema)
    .output(identityLookupSchema.extend({ secret: z.string().optional() }))
    .mutation(({ ctx, input }) => createIdentityLookup(ctx, ctx.actor, input)),
  deleteLookup: adminProcedure
    .input(z.object({ lookupId: z.string().max(64) }))
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => deleteIdentityLookup(ctx.prisma, ctx.actor, input.lookupId)),
});
