import { describe, expect, it } from 'vitest';
import { hmacPads } from '../sql/keyed-hash';
import { destinationRedactor, identifierRedactor, redactOutcome } from './redaction';

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

describe('destinationRedactor', () => {
  it("blanks out an integration's hash key and its padded forms, should a database error quote them", () => {
    const hashKey = Buffer.alloc(32, 0x5a);
    const { inner, outer } = hmacPads(hashKey);
    const redact = destinationRedactor({ accountType: null, secrets: null, hashKey });
    const text = redact(`bad input "${inner}" near ${outer} for ${hashKey.toString('hex')}`);
    for (const form of [inner, outer, hashKey.toString('hex')]) expect(text).not.toContain(form);
  });
});
