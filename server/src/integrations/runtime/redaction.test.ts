import { describe, expect, it } from 'vitest';
import { identifierRedactor, redactOutcome } from './redaction';

describe('redactOutcome', () => {
  it('blanks the identifier in the evidence, in keys as well as values', () => {
    // Stripe by customer id: the proof is keyed by the customer id, which is the identifier.
    const outcome = redactOutcome(
      {
        kind: 'success',
        message: 'Deleted 1 Stripe customer(s)',
        evidence: {
          customerIds: ['cus_Subject123'],
          lookupAfterDelete: { cus_Subject123: 'deleted: true', CUS_SUBJECT123: 'upper' },
          nested: [{ note: 'asked for cus_subject123' }],
        },
      },
      identifierRedactor('cus_Subject123'),
    );
    expect(outcome).toEqual({
      kind: 'success',
      message: 'Deleted 1 Stripe customer(s)',
      evidence: {
        customerIds: ['[identifier]'],
        lookupAfterDelete: { '[identifier]': 'upper' },
        nested: [{ note: 'asked for [identifier]' }],
      },
    });
    expect(JSON.stringify(outcome).toLowerCase()).not.toContain('cus_subject123');
  });
});
