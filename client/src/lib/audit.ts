import { STEP_AUDIT_ACTIONS } from '@shared/audit-actions';

/** Readable names for audit actions; unknown actions are shown as they are. */
const ACTION_LABEL: Record<string, string> = {
  'request.created': 'Request created',
  'request.identifier_revealed': 'Identifier revealed',
  'request.exchanges_revealed': 'Exchanges shown unmasked',
  'request.canceled': 'Request canceled',
  'request.deadline_extended': 'Deadline extended',
  'request.receipt_confirmed': 'Receipt confirmed',
  'request.receipt_confirmation_corrected': 'Receipt confirmation corrected',
  'request.bulk_retry': 'Bulk retry',
  'request.bulk_cancel': 'Bulk cancel',
  'workspace.created': 'Workspace created',
  'workspace.renamed': 'Workspace renamed',
  'workspace.deleted': 'Workspace deleted',
  'workspace.api_key_revealed': 'Workspace API key revealed',
  'workspace.api_key_rotated': 'Workspace API key rotated',
  'pat.created': 'Access token created',
  'pat.revoked': 'Access token revoked',
  'organization.renamed': 'Organization renamed',
  'integration.connection_tested': 'Connection tested',
  'audit.month_dropped': 'Audit log month dropped by retention',
};

/** How an integration request ended, by its outcome: "Deletion failed", not "Deletion completed FAILED". */
const COMPLETION_LABEL: Record<string, string> = {
  SUCCESS: 'Deletion completed',
  FAILED: 'Deletion failed',
  ERROR: 'Deletion stopped by an internal error',
  CANCELED: 'Deletion canceled',
};

/**
 * A step's entry, and the separate "completed" entry that integration requests finished before
 * one entry per step ended with: named by how the integration request ended when it ended it.
 */
const STEP_ACTIONS = new Set([...STEP_AUDIT_ACTIONS, 'deletion.completed']);

export function actionLabel(action: string, outcome?: string | null): string {
  if (STEP_ACTIONS.has(action) && outcome && COMPLETION_LABEL[outcome]) return COMPLETION_LABEL[outcome];
  if (ACTION_LABEL[action]) return ACTION_LABEL[action];
  const words = action.replace(/[._]/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "Jane (dashboard)", "Jane (API token)", "System". */
export function actorLabel(entry: { actorType: string; actorName: string | null; actorId: string | null }): string {
  if (entry.actorType === 'system' || !entry.actorId) return 'System';
  const who = entry.actorName ?? 'A former member';
  const via = entry.actorType === 'user:pat' ? 'API token' : entry.actorType === 'user:cli' ? 'CLI' : 'dashboard';
  return `${who} (${via})`;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Splits audit details into short scalar facts and larger blocks (HTTP exchanges, SQL, lists). */
export function splitDetails(details: JsonValue): { facts: [string, string][]; blocks: [string, JsonValue][] } {
  const facts: [string, string][] = [];
  const blocks: [string, JsonValue][] = [];
  if (details === null || typeof details !== 'object' || Array.isArray(details)) {
    if (details !== null) blocks.push(['details', details]);
    return { facts, blocks };
  }
  for (const [key, value] of Object.entries(details)) {
    if (value === null || typeof value !== 'object') {
      const text = String(value);
      if (text.length <= 120 && !text.includes('\n')) facts.push([key, text]);
      else blocks.push([key, value]);
    } else blocks.push([key, value]);
  }
  return { facts, blocks };
}

export function humanizeKey(key: string): string {
  const spaced = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1).toLowerCase();
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** Whether a recorded value is an instant (ISO 8601 with its offset): shown as a time in the viewer's zone. */
export const isIsoInstant = (text: string): boolean => ISO_INSTANT.test(text) && !Number.isNaN(Date.parse(text));

/**
 * A details block as indented JSON, each recorded instant written by `formatInstant` (the times
 * the page shows), except in recorded exchanges: what was sent and answered is shown as it was.
 */
export function detailsBlockText(key: string, value: JsonValue, formatInstant: (iso: string) => string): string {
  if (key === 'exchanges') return JSON.stringify(value, null, 2);
  return JSON.stringify(
    value,
    (_key, v: unknown) => (typeof v === 'string' && isIsoInstant(v) ? formatInstant(v) : v),
    2,
  );
}
