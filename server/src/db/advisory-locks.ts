/**
 * The PostgreSQL advisory lock of each job that only one process may run at a time. One
 * table, so that no two jobs share a key: a shared key makes one job skip or wait for the
 * other (retention skipping a day because a worker was sealing the audit chain).
 */
export const ADVISORY_LOCKS = {
  /** Applying migrations at start (session lock, waits). */
  migrations: 727274,
  /** The retention policy, scheduled or "Apply now" (session lock, skipped when held). */
  retention: 727275,
  /** Notifications (session lock, skipped when held). */
  notifications: 727276,
  /** Re-verification (session lock, skipped when held). */
  reverification: 727277,
  /** Sealing new audit entries into the hash chain (transaction lock, waits). */
  auditSeal: 727278,
  /** Recording the deadline callback events (session lock, skipped when held). */
  deadlineEvents: 727279,
  /** Workers leasing due steps, one claim at a time (transaction lock, waits). */
  claims: 727280,
  /** Manual task reminders and escalations (session lock, skipped when held). */
  manualTaskReminders: 727281,
  /** Counting open requests' deadlines again under the current rule (session lock, skipped when held). */
  deadlineRecount: 727282,
  /** Unmarking the running rows of integrations without limits (session lock, skipped when held). */
  limitedRows: 727283,
} as const;
