import { describe, expect, it } from 'vitest';
import { bulkConfirmation, selectionLabel } from './bulk';

describe('bulk action wording', () => {
  it('names the action and the count in the title and on the button that acts', () => {
    expect(bulkConfirmation('cancel', 37)).toMatchObject({
      title: 'Cancel 37 requests?',
      confirmLabel: 'Cancel 37 requests',
      cancelLabel: 'Keep requests',
    });
    expect(bulkConfirmation('retry', 1)).toMatchObject({
      title: 'Retry 1 request?',
      confirmLabel: 'Retry 1 request',
      cancelLabel: "Don't retry",
    });
  });

  it('says whether the selection is rows or the whole filter', () => {
    expect(selectionLabel({ allMatching: false, count: 3 })).toBe('3 selected');
    expect(selectionLabel({ allMatching: true, count: 1200 })).toBe('All 1,200 requests matching this filter selected');
  });
});
