import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  ConcurrencyField,
  parseMaxConcurrency,
  parseMaxRequestsPerSecond,
  RateField,
  vendorRateText,
} from './call-limit-fields';

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
    const html = renderToStaticMarkup(
      <ConcurrencyField value="0" type="WEBHOOK" error="At least 1" onChange={() => {}} />,
    );
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('At least 1');
  });

  it("says that a database's connections follow it, and only for a database", () => {
    const hint = (type: 'POSTGRES' | 'MYSQL' | 'WEBHOOK') =>
      renderToStaticMarkup(<ConcurrencyField value="" type={type} onChange={() => {}} />);
    expect(hint('POSTGRES')).toContain(
      'the most connections each worker keeps to this database (when empty, the workers’ CUSTOMER_DB_CONNECTIONS, 4 unless set)',
    );
    expect(hint('MYSQL')).toContain('the most connections each worker keeps to this database');
    expect(hint('WEBHOOK')).not.toContain('connections');
  });
});

describe('RateField', () => {
  it('reads empty as no limit and takes rates from 0.01 to 10,000 a second, fractions included', () => {
    expect(parseMaxRequestsPerSecond('')).toEqual({ value: null });
    expect(parseMaxRequestsPerSecond('20')).toEqual({ value: 20 });
    expect(parseMaxRequestsPerSecond('0.5')).toEqual({ value: 0.5 });
    expect(parseMaxRequestsPerSecond('0')).toEqual({ error: 'At least 0.01' });
    expect(parseMaxRequestsPerSecond('10001')).toEqual({ error: 'At most 10,000' });
    expect(parseMaxRequestsPerSecond('fast')).toEqual({ error: 'Must be a number' });
  });

  it("starts at the vendor's documented rate and says so, or says there is none", () => {
    expect(vendorRateText('MIXPANEL')).toBe('1');
    expect(vendorRateText('ZENDESK')).toBe('3.33');
    expect(vendorRateText('WEBHOOK')).toBe('');
    const stripe = renderToStaticMarkup(<RateField value="25" type="STRIPE" onChange={() => {}} />);
    expect(stripe).toContain('Calls per second');
    expect(stripe).toContain('value="25"');
    expect(stripe).toContain('The vendor documents 25 per second.');
    const webhook = renderToStaticMarkup(<RateField value="" type="WEBHOOK" onChange={() => {}} />);
    expect(webhook).toContain('The vendor documents no single rate.');
  });
});
