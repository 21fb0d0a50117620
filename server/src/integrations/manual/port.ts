import type { ManualConfig } from '@shared/integrations/manual';

/** An owner's answer to a manual task, as the driver turns it into an outcome. */
export interface ManualAnswer {
  answer: 'done' | 'not_found' | 'cannot';
  note: string | null;
  answeredAt: Date;
  /** "link" (an owner's task link), "member" (the dashboard) or "api" (a partner's ticketing system). */
  via: string;
  by: string | null;
  from: string | null;
  file: { fileName: string; contentType: string; sizeBytes: number; sha256: string } | null;
}

/**
 * What the manual driver needs from the service, handed in by the engine (the driver has no
 * database or mailer of its own): the task of this run, and its answer.
 */
export interface ManualTaskPort {
  /** Opens this run's task (or finds the one already open) and mails its owners the link; answers its id. */
  open(config: ManualConfig): Promise<{ taskId: string; mailed: number }>;
  /** The task's answer, or null while it is open. */
  answerOf(taskId: string): Promise<ManualAnswer | null>;
  /** Revokes the task's link (its request was canceled). */
  revoke(taskId: string): Promise<void>;
}
