import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { formValues, validateForm, type FieldErrors } from './form';

/**
 * A form's submit handler that first checks its values with the server's own zod schema:
 * field errors show at once and nothing is sent; valid data goes to `submit`, with the form
 * (to reset it). `toInput` turns the form's strings into the schema's input where they differ.
 */
export function useFormSubmit<S extends z.ZodType>(
  schema: S,
  submit: (data: z.output<S>, form: HTMLFormElement) => void,
  toInput: (values: Record<string, string>) => unknown = (values) => values,
) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const result = validateForm(schema, toInput(formValues(form)));
    if (!result.ok) return setErrors(result.errors);
    setErrors({});
    submit(result.data, form);
  };
  return { errors, onSubmit };
}
