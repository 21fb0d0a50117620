import { daysLeft } from '@shared/days-left';

const FULFILLED = new Set(['SUCCESS', 'CANCELED']);

/** How a deadline reads in a list: "in 5 days", "due today", "3 days overdue"; fulfilled requests only show the date. */
export function deadlineLabel(
  dueAt: string | null,
  status: string,
  now = new Date(),
): { text: string; tone: 'ok' | 'soon' | 'overdue' | 'done' } {
  if (!dueAt) return { text: 'no deadline', tone: 'done' };
  if (FULFILLED.has(status)) return { text: 'fulfilled', tone: 'done' };
  const due = new Date(dueAt);
  if (due.getTime() <= now.getTime()) {
    const late = Math.floor((now.getTime() - due.getTime()) / 86_400_000);
    return { text: late === 0 ? 'overdue today' : `${late} day${late === 1 ? '' : 's'} overdue`, tone: 'overdue' };
  }
  const left = daysLeft(due, now);
  return { text: left <= 1 ? 'due within a day' : `${left} days left`, tone: left <= 7 ? 'soon' : 'ok' };
}
