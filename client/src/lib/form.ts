import type { z } from 'zod';
import { issuesToFieldErrors } from './errors';

export type FieldErrors = Record<string, string>;

export type Validation<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors };

/**
 * What a person reads when a schema has no message of its own for a check: zod's defaults
 * ("Invalid input: expected number, received NaN", "Invalid key in record") are for developers.
 * Messages written in the shared schemas always win over these.
 */
export function humanIssueMessage(issue: z.core.$ZodRawIssue): string {
  const input = issue.input;
  const empty =
    input === undefined || input === null || input === '' || (typeof input === 'number' && Number.isNaN(input));
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'number' || issue.expected === 'int')
        return empty ? 'Enter a number' : 'Enter a whole number';
      return empty ? 'Required' : 'Enter a valid value';
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? 'Required' : `Use at least ${min} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `Add at least ${min}`;
      return `Enter ${issue.inclusive === false ? 'more than' : 'at least'} ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `Use at most ${max} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `Add at most ${max}`;
      return `Enter ${issue.inclusive === false ? 'less than' : 'at most'} ${max}`;
    }
    case 'invalid_format':
      if (issue.format === 'email') return 'Enter a valid email address';
      if (issue.format === 'url') return 'Enter a full URL, such as https://example.com/path';
      return 'Check the format of this value';
    case 'invalid_value':
      return 'Choose one of the options';
    case 'invalid_key':
      return (issue as { issues?: { message?: string }[] }).issues?.[0]?.message ?? 'This name is not allowed here';
    case 'not_multiple_of':
      return 'Enter a whole number';
    default:
      return empty ? 'Required' : 'Check this value';
  }
}

/** Runs the same zod schema the server uses and returns the first message per field. */
export function validateForm<S extends z.ZodType>(schema: S, values: unknown): Validation<z.output<S>> {
  const result = schema.safeParse(values, { error: humanIssueMessage });
  if (result.success) return { ok: true, data: result.data };
  // A record's refused key (a header name) belongs under the name's own field, not its value's.
  const issues = result.error.issues.map((issue) => {
    if (issue.code !== 'invalid_key') return issue;
    const key = String(issue.path.at(-1) ?? '');
    return {
      ...issue,
      path: [...issue.path.slice(0, -1), recordKeyField(key)],
      message: issue.issues[0]?.message ?? issue.message,
    };
  });
  return { ok: false, errors: issuesToFieldErrors(issues as never[]) };
}

/** The error key of a record entry's name (`headers.bad name#name`), beside its value's (`headers.bad name`). */
export const recordKeyField = (key: string) => `${key}#name`;

/** Values of a submitted form as strings keyed by control name. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of new FormData(form)) if (typeof value === 'string') values[key] = value;
  return values;
}

/**
 * Moves focus to the first control (in the form's order) that has an error, once the errors
 * have rendered, so keyboard and screen-reader users land on what to fix. Keys are field
 * names (`name`, `config.url`); a control matches by its name or its `data-field`, else the
 * first control marked invalid. `form` may also be a group of fields inside another form.
 */
export function focusFirstInvalid(form: HTMLElement | null, errors: FieldErrors): void {
  if (!form || Object.keys(errors).length === 0) return;
  requestAnimationFrame(() => {
    const controls = Array.from(form.querySelectorAll<HTMLElement>('input, select, textarea, [data-field]'));
    const fieldOf = (el: HTMLElement) => el.dataset.field ?? (el as HTMLInputElement).name;
    const target =
      controls.find((el) => fieldOf(el) in errors) ?? controls.find((el) => el.getAttribute('aria-invalid') === 'true');
    target?.focus();
  });
}
