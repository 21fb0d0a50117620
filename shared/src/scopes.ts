import { z } from 'zod';

/**
 * What a personal access token may do. A token limited to scopes may call only the
 * operations that name one of its scopes; everything else (managing workspaces,
 * integrations, members, tokens) needs a token without limits.
 */
export const TOKEN_SCOPES = ['requests:read', 'requests:write', 'erasure-checks:read', 'callbacks:manage'] as const;
export const tokenScopeSchema = z.enum(TOKEN_SCOPES);
export type TokenScope = z.infer<typeof tokenScopeSchema>;

export const TOKEN_SCOPE_LABELS: Record<TokenScope, string> = {
  'requests:read': 'Read deletion requests and their audit trails',
  'requests:write': 'Create, cancel, retry and check deletion requests',
  'erasure-checks:read': 'Ask whether a subject has been erased',
  'callbacks:manage': 'Manage status callback endpoints',
};
