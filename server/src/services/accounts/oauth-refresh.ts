import { storedIntegrationType } from '@shared/integrations/connectors';
import type { Config } from '../../config';
import type { DbOrTx, Db } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { openSecret, sealSecret } from '../keys/secret-store';
import { PermanentError, TransientError } from '../../integrations/types';
import { recordAudit } from '../audit/record-audit';
import { accountContext } from './secrets';
import { providerForType, isConfigured, type OAuthProvider } from '../../oauth/providers';
import { OAuthGrantError, OAuthUnavailableError, requestTokens, secretsFromTokens } from '../../oauth/token-endpoint';

/** Refresh this long before the access token expires, so it does not expire mid-call. */
const EXPIRY_MARGIN_MS = 60_000;

/** True for OAUTH credentials whose access token has expired (or is about to) and that can be refreshed. */
export function needsRefresh(secrets: Record<string, unknown>, now = Date.now()): boolean {
  if (
    typeof secrets.accessToken !== 'string' ||
    typeof secrets.refreshToken !== 'string' ||
    typeof secrets.expiresAt !== 'string'
  )
    return false;
  const expiresAt = Date.parse(secrets.expiresAt);
  return Number.isFinite(expiresAt) && expiresAt - EXPIRY_MARGIN_MS <= now;
}

interface RefreshDeps {
  prisma: DbOrTx;
  keyring: Keyring;
  config: Config;
}

/**
 * Exchanges the refresh token for a new access token and stores it encrypted. One refresh
 * per account at a time (advisory lock); a caller that waited finds the fresh token and uses
 * it. A revoked grant (invalid_grant) is a PermanentError that says to reconnect.
 */
export async function refreshOAuthAccount(
  deps: RefreshDeps,
  organizationId: string,
  accountId: string,
): Promise<Record<string, unknown>> {
  if (!('$transaction' in deps.prisma))
    throw new Error('refreshOAuthAccount needs the database client, not a transaction');
  const db = deps.prisma as Db;
  let revoked: { name: string; reason: string } | null = null;
  try {
    return await db.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`oauth-refresh:${accountId}`}))`;
        const account = await tx.account.findFirst({
          where: { id: accountId, organizationId },
          select: { name: true, integrationType: true, secretCipher: true, secretHints: true },
        });
        if (!account) throw new PermanentError('The account of this integration was deleted');
        const secrets = JSON.parse(
          await openSecret(
            { prisma: tx, keyring: deps.keyring },
            organizationId,
            account.secretCipher,
            accountContext(accountId),
          ),
        ) as Record<string, unknown>;
        if (!needsRefresh(secrets)) return secrets;
        const provider = providerForType(deps.config, storedIntegrationType(account.integrationType));
        if (!provider || !isConfigured(provider)) {
          throw new PermanentError(
            `The access token of account "${account.name}" expired and cannot be refreshed: OAuth is not configured on this server${provider ? ` (set ${provider.envHint})` : ''}`,
          );
        }
        let tokens;
        try {
          tokens = await requestTokens(provider as Required<OAuthProvider>, {
            grant_type: 'refresh_token',
            refresh_token: secrets.refreshToken as string,
          });
        } catch (error) {
          if (error instanceof OAuthUnavailableError) throw new TransientError(error.message, 30_000);
          if (error instanceof OAuthGrantError) {
            const reason =
              error.error === 'invalid_grant'
                ? `The OAuth grant of account "${account.name}" was revoked or has expired (${error.message}); reconnect the account`
                : `${provider.label} refused to refresh the access token of account "${account.name}" (${error.message})`;
            revoked = { name: account.name, reason };
            throw new PermanentError(reason);
          }
          throw error;
        }
        const fresh = secretsFromTokens(tokens, new Date(), secrets);
        const hints = {
          ...((account.secretHints as Record<string, unknown>) ?? {}),
          ...(typeof fresh.expiresAt === 'string' ? { expiresAt: fresh.expiresAt } : {}),
        };
        await tx.account.update({
          where: { id: accountId },
          data: {
            secretCipher: await sealSecret(
              { prisma: tx, keyring: deps.keyring },
              organizationId,
              JSON.stringify(fresh),
              accountContext(accountId),
            ),
            secretHints: hints as object,
          },
        });
        await recordAudit(tx, null, {
          organizationId,
          action: 'account.oauth_refreshed',
          summary: `Access token of account "${account.name}" refreshed`,
          details: { accountId, expiresAt: (fresh.expiresAt as string | undefined) ?? null },
        });
        return fresh;
      },
      { timeout: 20_000, maxWait: 20_000 },
    );
  } finally {
    const failure = revoked as { name: string; reason: string } | null;
    if (failure) {
      await recordAudit(db, null, {
        organizationId,
        action: 'account.oauth_revoked',
        outcome: 'FAILED',
        summary: failure.reason,
        details: { accountId },
      }).catch(() => {});
    }
  }
}
