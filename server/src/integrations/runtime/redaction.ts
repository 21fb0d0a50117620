import { isSecretAccountField, type AccountType } from '@shared/integrations/accounts';

/**
 * The values to blank out of every recorded exchange (audit trail) and log line of a call
 * made with an account's credentials: the string value of each field that the account type
 * declares secret (`isSecretAccountField`, from `ACCOUNT_PUBLIC_FIELDS` in
 * `shared/src/integrations/accounts.ts`). An account of unknown type has every value
 * treated as secret. `http-client.ts` replaces these values wherever they appear (URL,
 * headers, bodies, errors).
 */
export function secretValues(accountType: AccountType | null | undefined, secrets: Record<string, unknown> | null): string[] {
  if (!secrets) return [];
  return Object.entries(secrets)
    .filter(([key, value]) => typeof value === 'string' && value !== '' && isSecretAccountField(accountType, key))
    .map(([, value]) => value as string);
}
