import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ConcurrencyField, parseMaxConcurrency } from './concurrency-field';

describe('ConcurrencyField', () => {
  it('reads empty as no limit and takes whole numbers from 1 to 1,024', () => {
    expect(parseMaxConcurrency('')).toEqual({ value: null });
    expect(parseMaxConcurrency('  ')).toEqual({ value: null });
    expect(parseMaxConcurrency('2')).toEqual({ value: 2 });
    expect(parseMaxConcurrency('1024')).toEqual({ value: 1024 });
    expect(parseMaxConcurrency('0')).toEqual({ error: 'At least 1' });
    expect(parseMaxConcurrency('1025')).toEqual({ error: 'At most 1,024' });
    expect(parseMaxConcurrency('2.5')).toEqual({ error: 'Must be a whole number' });
    expect(parseMaxConcurrency('two')).toEqual({ error: 'Must be a whole number' });
  });

  it('shows its error tied to the input', () => {
    const html = renderToStaticMarkup(<ConcurrencyField value="0" error="At least 1" onChange={() => {}} />);
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('At least 1');
  });
});
