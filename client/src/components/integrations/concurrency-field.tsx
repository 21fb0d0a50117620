import { maxConcurrencySchema } from '@shared/schemas/integration-settings';
import { TextField } from '../field';

/** The field's text as an integration's `maxConcurrency`: empty is no limit of its own (null). */
export function parseMaxConcurrency(text: string): { value: number | null } | { error: string } {
  if (text.trim() === '') return { value: null };
  const number = Number(text);
  if (!Number.isFinite(number)) return { error: 'Must be a whole number' };
  const checked = maxConcurrencySchema.safeParse(number);
  return checked.success ? { value: checked.data } : { error: checked.error.issues[0]!.message };
}

/** How many calls to this destination may be in flight at once, across all worker processes. */
export function ConcurrencyField(props: { value: string; error?: string; onChange: (text: string) => void }) {
  return (
    <TextField
      label="Calls at once"
      type="number"
      inputMode="numeric"
      min={1}
      step={1}
      value={props.value}
      placeholder="No limit"
      hint="The most calls to this destination in flight at once, across all workers; a slow destination then holds no more. Empty: no limit of its own."
      error={props.error}
      onChange={(e) => props.onChange(e.target.value)}
    />
  );
}
