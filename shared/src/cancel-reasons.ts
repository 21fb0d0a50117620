/**
 * Why a request was closed without being fulfilled, as plain values (the dashboard's first
 * bundle shows them without loading zod).
 */
export const CANCEL_REASONS = ['withdrawn', 'identity_not_verified', 'legal_exemption', 'duplicate', 'other'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export const CANCEL_REASON_LABELS: Record<CancelReason, string> = {
  withdrawn: 'Withdrawn by the person',
  identity_not_verified: 'Identity not verified',
  legal_exemption: 'Legal exemption',
  duplicate: 'Duplicate request',
  other: 'Other',
};

/** How a canceled request reads everywhere it is shown or exported. */
export const CLOSED_NOT_FULFILLED = 'Closed — not fulfilled';

/** The reason as it reads: its label, with the words given ("Other: moved abroad"); null without one. */
export function cancelReasonText(reason: string | null, note: string | null): string | null {
  const label = reason && reason in CANCEL_REASON_LABELS ? CANCEL_REASON_LABELS[reason as CancelReason] : null;
  if (!label) return note || null;
  return note ? `${label}: ${note}` : label;
}

/** "Closed — not fulfilled (Duplicate request)", or without parentheses when no reason was given. */
export function closedNotFulfilled(reason: string | null, note: string | null): string {
  const text = cancelReasonText(reason, note);
  return text ? `${CLOSED_NOT_FULFILLED} (${text})` : CLOSED_NOT_FULFILLED;
}
