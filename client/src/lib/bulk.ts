import type { BulkItemOutcome } from '@shared/schemas/bulk-actions';

export type BulkAction = 'retry' | 'cancel';

const requests = (n: number) => `${n.toLocaleString()} request${n === 1 ? '' : 's'}`;

/** What the confirmation says before a bulk action: the title names the action and the count, the buttons say what they do. */
export function bulkConfirmation(action: BulkAction, count: number) {
  if (action === 'retry') {
    return {
      title: `Retry ${requests(count)}?`,
      confirmLabel: `Retry ${requests(count)}`,
      cancelLabel: "Don't retry",
      body: 'Every failed integration of each request is sent again with a fresh attempt budget. Requests with nothing failed are skipped and listed with the reason.',
    };
  }
  return {
    title: `Cancel ${requests(count)}?`,
    confirmLabel: `Cancel ${requests(count)}`,
    cancelLabel: 'Keep requests',
    body: 'Integrations that have not finished are asked to stop; this cannot be undone. Finished requests are skipped, and destinations that cannot cancel a deletion they have accepted are listed with the reason.',
  };
}

export const BULK_OUTCOME_LABEL: Record<BulkItemOutcome, string> = {
  retried: 'Retried',
  canceled: 'Canceled',
  partly_canceled: 'Partly canceled',
  skipped: 'Skipped',
};

/** "12 selected", or "All 37 matching this filter" when the selection is the filter itself. */
export function selectionLabel(selection: { allMatching: boolean; count: number }): string {
  return selection.allMatching
    ? `All ${requests(selection.count)} matching this filter selected`
    : `${selection.count.toLocaleString()} selected`;
}
