import { createContext, useContext } from 'react';
import type { RouterOutputs } from '../trpc';

export type Me = RouterOutputs['auth']['me'];

export const MeContext = createContext<Me | null>(null);

/** The signed-in user, active organization and role; only inside the signed-in shell. */
export function useMe(): Me & { isAdmin: boolean; isOwner: boolean } {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe is used outside the signed-in shell');
  return { ...me, isAdmin: me.role === 'OWNER' || me.role === 'ADMIN', isOwner: me.role === 'OWNER' };
}
