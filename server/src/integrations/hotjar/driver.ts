import type { HotjarConfig } from '@shared/integrations/hotjar';
import { isSuccessStatus } from '../runtime/http-client';
import { connectionVerdict, deletionFailure } from '../saas';
import type { Driver, DriverContext } from '../types';
import { credential } from '../runtime/vendor-http';
import { bearerToken, hotjarClient, hotjarStyle as style } from './client';

const clientFor = (ctx: Pick<DriverContext<HotjarConfig>, 'http' | 'config' | 'secrets'>) =>
  hotjarClient(ctx.http, ctx.config, credential(ctx, 'apiKey'), credential(ctx, 'secretKey'));

/**
 * Hotjar's User Lookup with `delete_all_hits: true`: Hotjar deletes what it holds for the email
 * (survey and feedback responses and the recordings they were connected to) or the User ID, across
 * the organization's sites. One call; Hotjar publishes no status or lookup to confirm it, so the
 * evidence is its acceptance.
 */
export const hotjarDriver: Driver<HotjarConfig> = {
  type: 'HOTJAR',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'at once (Hotjar deletes the data it finds when the lookup runs)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const token = await bearerToken(client);
    if (typeof token !== 'string') return deletionFailure(style, token, ctx.now);
    const response = await client.lookupAndDelete(token, ctx.identifier);
    if (!isSuccessStatus(response.status)) return deletionFailure(style, response, ctx.now);
    return {
      kind: 'success',
      message: `Hotjar accepted the user lookup with delete_all_hits for this ${ctx.config.identifierType === 'email' ? 'email' : `User ID on ${ctx.config.siteIds.length} site(s)`}`,
      evidence: {
        hotjarOrganizationId: ctx.config.organizationId,
        lookupBy: ctx.config.identifierType,
        siteIds: ctx.config.siteIds,
        deleteAllHits: true,
        hotjarStatus: response.status,
      },
    };
  },

  async testConnection(ctx) {
    // The token request proves the client id and secret; nothing is looked up or deleted.
    try {
      const token = await bearerToken(clientFor(ctx));
      return typeof token === 'string'
        ? { ok: true, message: 'Hotjar issued a token for this API key' }
        : connectionVerdict(style, token, '');
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
