import { personRequestsInputSchema } from '@shared/schemas/person';
import { memberProcedure } from '../../trpc/procedures';
import { getPersonRequests } from '../../services/people/person-requests';

/** A person's page: every request of the person one request is for, across the organization's workspaces, masked. */
export const personRequests = memberProcedure
  .input(personRequestsInputSchema)
  .query(({ ctx, input }) => getPersonRequests(ctx.prisma, ctx.keyring, ctx.actor, input.deletionRequestId));
