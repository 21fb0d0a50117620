import { generateToken, hashToken, isWellFormedToken } from '../../lib/tokens';

/** A task link keeps working this long after the request's legal deadline (or the task's own, if later). */
export const TASK_LINK_GRACE_MS = 14 * 86_400_000;

/** A new task link's token and the hash the database keeps (the token itself is only in the email). */
export function newTaskToken(): { token: string; tokenHash: string } {
  const { token, hash } = generateToken('manualTask');
  return { token, tokenHash: hash };
}

/** The hash of a token as a link carries it, or null for anything that is not one of ours (altered, truncated). */
export function taskTokenHash(token: string): string | null {
  return isWellFormedToken('manualTask', token) ? hashToken(token) : null;
}

/**
 * The page an owner opens: the token travels in the fragment, so it never reaches a server's
 * request log or a Referer header.
 */
export function taskLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/task#token=${encodeURIComponent(token)}`;
}

/** When a task's link stops working: the later of the request's deadline and the task's own, plus the grace period. */
export function taskLinkExpiry(taskDueAt: Date, requestDueAt: Date | null): Date {
  const latest = Math.max(taskDueAt.getTime(), requestDueAt?.getTime() ?? 0);
  return new Date(latest + TASK_LINK_GRACE_MS);
}
