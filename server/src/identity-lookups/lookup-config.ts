import { z } from 'zod';
import { auth0ConfigSchema } from '@shared/integrations';
import { LookupConfigError } from './errors';
import { prepareSelect } from './sql-guard';

export type FoundIdentifier = { type: string; value: string };

export type IdentityLookupConfig =
  | {
      kind: 'sql';
      dialect: 'postgres' | 'mysql';
      /** One parameterised SELECT; placeholders `{{email}}`, `{{user_id}}`… name identifier types and become bound parameters ($1 / ?). */
      query: string;
      /** Result column -> identifier type. */
      columns: Record<string, string>;
      timeoutMs: number;
      maxRows: number;
    }
  | { kind: 'webhook'; url: string; timeoutMs: number; maxIdentifiers: number }
  /** Stripe customers by email (a STRIPE account), their ids as `identifierType`. */
  | { kind: 'stripe'; baseUrl?: string; identifierType: string; maxIdentifiers: number }
  /** Auth0 users by email (an AUTH0 account, the tenant's own domain), their user_ids as `identifierType`. */
  | { kind: 'auth0'; domain: string; baseUrl?: string; identifierType: string; maxIdentifiers: number }
  /** HubSpot contacts by email (a HUBSPOT account), their record ids as `identifierType`. */
  | { kind: 'hubspot'; baseUrl?: string; identifierType: string; maxIdentifiers: number };

export const LOOKUP_TIMEOUT_MS = { min: 100, max: 60_000 } as const;
export const LOOKUP_MAX_ROWS = 100;
export const LOOKUP_MAX_IDENTIFIERS = 50;
const QUERY_MAX_CHARS = 10_000;

const timeoutMs = z
  .number()
  .int()
  .min(LOOKUP_TIMEOUT_MS.min, `must be at least ${LOOKUP_TIMEOUT_MS.min} ms`)
  .max(LOOKUP_TIMEOUT_MS.max, `must be at most ${LOOKUP_TIMEOUT_MS.max} ms`);

const maxIdentifiers = z
  .number()
  .int()
  .min(1, 'must be at least 1')
  .max(LOOKUP_MAX_IDENTIFIERS, `must be at most ${LOOKUP_MAX_IDENTIFIERS}`);
/** A connector lookup's vendor address (a stand-in or a regional host); the vendor's own when absent. */
const baseUrl = z
  .string()
  .url('Enter an http(s) URL')
  .refine((url) => /^https?:$/.test(new URL(url).protocol), 'Enter an http(s) URL')
  .optional();
const identifierType = z.string().min(1, 'Choose the identifier type of the ids found');

/** The shape of a lookup's settings; `validateLookupConfig` adds what needs the organization's identifier types. */
export const identityLookupConfigSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('sql'),
    dialect: z.enum(['postgres', 'mysql']),
    query: z.string().trim().min(1, 'Enter a SELECT query').max(QUERY_MAX_CHARS, 'is too long'),
    columns: z.record(
      z.string().trim().min(1, 'Name a column').max(64, 'Column names are at most 64 characters'),
      z.string(),
    ),
    timeoutMs,
    maxRows: z.number().int().min(1, 'must be at least 1').max(LOOKUP_MAX_ROWS, `must be at most ${LOOKUP_MAX_ROWS}`),
  }),
  z.object({
    kind: z.literal('webhook'),
    url: z
      .string()
      .url('Enter an http(s) URL')
      .refine((url) => /^https?:$/.test(new URL(url).protocol), 'Enter an http(s) URL')
      .refine((url) => !new URL(url).username && !new URL(url).password, 'Credentials do not belong in the URL'),
    timeoutMs,
    maxIdentifiers,
  }),
  z.object({ kind: z.literal('stripe'), baseUrl, identifierType, maxIdentifiers }),
  z.object({
    kind: z.literal('auth0'),
    domain: auth0ConfigSchema.shape.domain,
    baseUrl,
    identifierType,
    maxIdentifiers,
  }),
  z.object({ kind: z.literal('hubspot'), baseUrl, identifierType, maxIdentifiers }),
]) satisfies z.ZodType<IdentityLookupConfig>;

/**
 * Refuses, at save time, a configuration that cannot run as a safe lookup: a query that is not
 * a single SELECT, a placeholder or a column mapped to a type the organization does not have,
 * no column mapped, a timeout or cap out of bounds. Throws LookupConfigError naming the field.
 */
export function validateLookupConfig(config: IdentityLookupConfig, knownTypes: string[]): void {
  const parsed = identityLookupConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'kind';
    throw new LookupConfigError(field, `${field}: ${issue.message}`);
  }
  const valid = parsed.data;
  if ('identifierType' in valid && !knownTypes.includes(valid.identifierType))
    throw new LookupConfigError(
      'identifierType',
      `identifierType: ${valid.identifierType} is no identifier type of the organization`,
    );
  if (valid.kind !== 'sql') return;
  prepareSelect(valid.query, valid.dialect, knownTypes);
  const mapped = Object.entries(valid.columns);
  if (mapped.length === 0)
    throw new LookupConfigError('columns', 'Map at least one result column to an identifier type');
  for (const [column, type] of mapped)
    if (!knownTypes.includes(type))
      throw new LookupConfigError(
        `columns.${column}`,
        `The column ${column} is mapped to ${type}, which is no identifier type`,
      );
}
