import { UNFULFILLED_STATUSES } from '@shared/status-values';
import type { Prisma } from '../../generated/prisma/client';

/**
 * Requests that still owe the subject an answer, as the overview, the digest and the Requests
 * screen's deadline filters select them: the unfulfilled statuses named (IN), which the
 * (organization, status) index answers (see UNFULFILLED_STATUSES).
 */
export const unfulfilledWhere = { status: { in: UNFULFILLED_STATUSES } } satisfies Prisma.DeletionRequestWhereInput;

/** CCPA requests whose receipt is still to be confirmed to the subject, unless the request was canceled. */
export const receiptToConfirmWhere = {
  receiptConfirmBy: { not: null },
  receiptConfirmedAt: null,
  status: { not: 'CANCELED' },
} satisfies Prisma.DeletionRequestWhereInput;
