import { maxConcurrencySchema, maxRequestsPerSecondSchema } from '@shared/schemas/integration-settings';
import { integrationTypeInfo } from '@shared/integrations';
import { vendorRequestsPerSecond } from '@shared/integrations/rate-limits';
import type { IntegrationType } from '@shared/statuses';
import type { ZodType } from 'zod';
import { TextField } from '../field';

/** A number field's text checked with `schema`: empty is no limit of its own (null). */
function parseLimit(text: string, schema: ZodType<number>): { value: number | null } | { error: string } {
  if (text.trim() === '') return { value: null };
  const number = Number(text);
  if (!Number.isFinite(number)) return { error: 'Must be a number' };
  const checked = schema.safeParse(number);
  return checked.success ? { value: checked.data } : { error: checked.error.issues[0]!.message };
}

/** The field's text as an integration's `maxConcurrency`: empty is no limit of its own (null). */
export function parseMaxConcurrency(text: string): { value: number | null } | { error: string } {
  const parsed = parseLimit(text, maxConcurrencySchema);
  return 'error' in parsed && parsed.error === 'Must be a number' ? { error: 'Must be a whole number' } : parsed;
}

/** The field's text as an integration's `maxRequestsPerSecond`: empty is no rate limit of its own (null). */
export function parseMaxRequestsPerSecond(text: string): { value: number | null } | { error: string } {
  return parseLimit(text, maxRequestsPerSecondSchema);
}

/** The vendor's documented rate of `type` as the field shows it (two decimals at most), empty when it publishes none. */
export function vendorRateText(type: IntegrationType): string {
  const rate = vendorRequestsPerSecond(type);
  return rate === null ? '' : String(Math.floor(rate * 100) / 100);
}

/** How many calls to this destination may be in flight at once, across all worker processes. */
export function ConcurrencyField(props: {
  value: string;
  type: IntegrationType;
  error?: string;
  onChange: (text: string) => void;
}) {
  // A database's connections follow it (server/src/integrations/sql/connections.ts).
  const database = (integrationTypeInfo[props.type]?.accountTypes ?? []).includes('DATABASE');
  return (
    <TextField
      label="Calls at once"
      type="number"
      inputMode="numeric"
      min={1}
      step={1}
      value={props.value}
      placeholder="No limit"
      hint={`The most calls to this destination in flight at once, across all workers; a slow destination then holds no more.${
        database
          ? ' It is also the most connections each worker keeps to this database (when empty, the workers’ CUSTOMER_DB_CONNECTIONS, 4 unless set).'
          : ''
      } Empty: no limit of its own.`}
      error={props.error}
      onChange={(e) => props.onChange(e.target.value)}
    />
  );
}

/** How many calls to this destination may start per second, across all worker processes. */
export function RateField(props: {
  value: string;
  type: IntegrationType;
  error?: string;
  onChange: (text: string) => void;
}) {
  const documented = vendorRateText(props.type);
  return (
    <TextField
      label="Calls per second"
      type="number"
      inputMode="decimal"
      min={0.01}
      step="any"
      value={props.value}
      placeholder="No limit"
      hint={`The most calls to this destination per second, across all workers (0.5: one every 2 s). ${
        documented ? `The vendor documents ${documented} per second.` : 'The vendor documents no single rate.'
      } Empty: no limit of its own; a 429 still pauses it for the wait it names.`}
      error={props.error}
      onChange={(e) => props.onChange(e.target.value)}
    />
  );
}
