import { openDuplicatesInputSchema } from '@shared/schemas/person';
import { memberProcedure } from '../../trpc/procedures';
import { findOpenDuplicates } from '../../services/people/open-duplicates';
import { refuseIdentifierInUrl } from '../identifier-in-url';

/**
 * The create form's check before it creates: the open requests of the organization that share
 * an identifier with the one about to be created, masked. Identifiers come in a POST body only.
 */
export const openDuplicates = memberProcedure.input(openDuplicatesInputSchema).query(({ ctx, input }) => {
  refuseIdentifierInUrl(ctx, input);
  return findOpenDuplicates(ctx, ctx.actor, input);
});
