import type { z } from 'zod';
import type { AccountType } from './accounts';
import type { CatalogueEntry } from './catalogue';

/**
 * Everything the forms, the engine, the README and the API know about one integration type,
 * held in the connector's own file (`shared/src/integrations/<vendor>.ts`) and named once in
 * `connectors.ts`.
 */
export interface ConnectorDefinition<Type extends string = string> {
  /** The integration type, as stored and as the API names it. */
  type: Type;
  /** What the type is called in the dashboard and in messages. */
  label: string;
  accountTypes: readonly AccountType[];
  /** False when the account is optional (webhooks without secrets). */
  accountRequired: boolean;
  configSchema: z.ZodType;
  /** What the catalogue (README table, dashboard picker) says about it. */
  catalogue: CatalogueEntry;
}

/** A connector's definition, its type kept as a literal so the list of connectors spells the union of types. */
export function defineConnector<const Type extends string>(
  definition: ConnectorDefinition<Type>,
): ConnectorDefinition<Type> {
  return definition;
}
