import { useRef, useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { focusFirstInvalid, formValues, validateForm, type FieldErrors } from './form';

/** A schema, or how to load it: pages that must stay small (sign-in) load zod when the form is first sent. */
export type SchemaSource<S extends z.ZodType> = S | (() => Promise<S>);

/**
 * A form's submit handler that first checks its values with the server's own zod schema:
 * field errors show at once, focus moves to the first invalid field, and nothing is sent;
 * valid data goes to `submit`, with the form (to reset it). While errors show, `onInput`
 * re-checks the form and drops each error whose field has been fixed (it adds none).
 * `toInput` turns the form's strings into the schema's input where they differ.
 */
export function useFormSubmit<S extends z.ZodType>(
  schema: SchemaSource<S>,
  submit: (data: z.output<S>, form: HTMLFormElement) => void,
  toInput: (values: Record<string, string>) => unknown = (values) => values,
) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const loaded = useRef<S | null>(typeof schema === 'function' ? null : schema);
  const resolve = async (): Promise<S> => (loaded.current ??= await (schema as () => Promise<S>)());
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const result = validateForm(await resolve(), toInput(formValues(form)));
    if (!result.ok) {
      setErrors(result.errors);
      focusFirstInvalid(form, result.errors);
      return;
    }
    setErrors({});
    submit(result.data, form);
  };
  const onInput = (event: FormEvent<HTMLFormElement>) => {
    if (!loaded.current || Object.keys(errors).length === 0) return;
    const result = validateForm(loaded.current, toInput(formValues(event.currentTarget)));
    const still = result.ok ? {} : result.errors;
    setErrors((current) => Object.fromEntries(Object.entries(current).filter(([field]) => field in still)));
  };
  return { errors, onSubmit, onInput, setErrors };
}
