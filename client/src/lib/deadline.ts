import { CLOSED_NOT_FULFILLED } from '@shared/cancel-reasons';
import { businessDaysLeft, daysLeft } from '@shared/days-left';

/** How a deadline reads in a list: "in 5 days", "due today", "3 days overdue"; finished requests say how they ended. */
export function deadlineLabel(
  dueAt: string | null,
  status: string,
  now = new Date(),
): { text: string; tone: 'ok' | 'soon' | 'overdue' | 'done' } {
  if (!dueAt) return { text: 'no deadline', tone: 'done' };
  if (status === 'SUCCESS') return { text: 'fulfilled', tone: 'done' };
  // Canceled: nothing was deleted, so nothing was fulfilled.
  if (status === 'CANCELED') return { text: CLOSED_NOT_FULFILLED, tone: 'done' };
  const due = new Date(dueAt);
  if (due.getTime() <= now.getTime()) {
    const late = Math.floor((now.getTime() - due.getTime()) / 86_400_000);
    return { text: late === 0 ? 'overdue today' : `${late} day${late === 1 ? '' : 's'} overdue`, tone: 'overdue' };
  }
  const left = daysLeft(due, now);
  return { text: left <= 1 ? 'due within a day' : `${left} days left`, tone: left <= 7 ? 'soon' : 'ok' };
}

/**
 * Where a receipt still to confirm stands (CCPA: 10 business days): business days left (negative
 * once late), its tone, and the count as it reads ("3 business days left", "2 business days late",
 * "due today").
 */
export function receiptDueLabel(
  confirmBy: string,
  now = new Date(),
): { left: number; tone: 'ok' | 'soon' | 'overdue'; text: string } {
  const left = businessDaysLeft(new Date(confirmBy), now);
  const days = (n: number) => `${n} business day${n === 1 ? '' : 's'}`;
  return {
    left,
    tone: left < 0 ? 'overdue' : left <= 2 ? 'soon' : 'ok',
    text: left < 0 ? `${days(-left)} late` : left === 0 ? 'due today' : `${days(left)} left`,
  };
}
