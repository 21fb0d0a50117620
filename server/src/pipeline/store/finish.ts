import type pg from 'pg';
import { checkOut } from '../../db/connections';
import { storableJson } from '../../db/storable';
import { withDetailsPacked } from '../../services/audit/recorded-exchanges';
import type { RequestStatus } from '@shared/statuses';
import { rollUpChange, writeRollUps, type ChildState, type LockedParent, type RollUpChange } from './roll-up';
import { enqueueIntegrationFailedEvents } from '../../callbacks/store/events';
import { wakeCallbackDispatchers } from '../../queue/wake-up';
import { AUDIT_COLUMNS, KEPT_PLANS, NOW_UTC, pgQuery, utc, type AuditRow, type Query } from './sql';

/** The columns a step may change. */
export interface StepUpdate {
  status?: RequestStatus;
  trackingId?: string;
  lastError?: string | null;
  attempts?: number;
  nextAttemptAt?: Date | null;
  completedAt?: Date | null;
  /** What the destination proved, on success: kept on the row, where retention leaves it. */
  evidence?: Record<string, unknown>;
}

/** A step's outcome, to be written: its new state, its audit entries (in order). */
export interface FinishingStep {
  id: string;
  deletionRequestId: string;
  status: RequestStatus;
  data: StepUpdate;
  entries: AuditRow[];
}

/**
 * Writes the outcomes of several steps in one transaction: the parents' locks (taken in id
 * order, so two workers finishing steps of the same requests cannot deadlock), then one
 * statement for every step's new state, the release of its lease and its audit entries,
 * then one for the parents' roll-ups. A step whose lease this worker no longer holds (it
 * stalled past it, and the new owner records the outcome instead) is left alone; its
 * result is null. Results are in the order of `steps`.
 */
export async function finishSteps(
  pool: pg.Pool,
  workerId: string,
  steps: FinishingStep[],
): Promise<(RequestStatus | null)[]> {
  if (steps.length === 0) return [];
  const held = await checkOut(pool);
  const client = held.client;
  const query = pgQuery(client);
  try {
    const parentIds = [...new Set(steps.map((s) => s.deletionRequestId))].sort();
    const parents = await beginAndLockParents(client, parentIds);
    const lockedIds = steps.filter((s) => parents.has(s.deletionRequestId));
    const siblings = lockedIds.length > 0 ? await writeSteps(query, workerId, lockedIds) : [];
    const updated = new Set(siblings.filter((r) => r.updated).map((r) => r.id));
    const changes: RollUpChange[] = [];
    for (const id of parentIds) {
      const parent = parents.get(id);
      const children = siblings.filter((r) => r.deletionRequestId === id);
      if (!parent || !children.some((r) => r.updated)) continue;
      const change = rollUpChange(id, parent, children);
      if (change) changes.push(change);
    }
    const callbacks =
      (await writeRollUps(query, changes)) +
      (await enqueueIntegrationFailedEvents(
        query,
        siblings.filter((r) => r.updated && (r.status === 'FAILED' || r.status === 'ERROR')).map((r) => r.id),
      ));
    await client.query('COMMIT');
    if (callbacks > 0) wakeCallbackDispatchers(pool);
    return steps.map((s) => (updated.has(s.id) ? s.status : null));
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    held.release();
  }
}

/**
 * BEGIN and the parents' row locks in one round trip (a simple-protocol query, so the ids
 * are sent as escaped literals). Parents that no longer exist are missing from the map.
 * The transaction's statements keep their generic plans (`KEPT_PLANS`; looked up by key
 * whatever the batch size, see `writeSteps`).
 */
async function beginAndLockParents(client: pg.PoolClient, ids: string[]): Promise<Map<string, LockedParent>> {
  const list = ids.map((id) => client.escapeLiteral(id)).join(', ');
  const results = (await client.query(
    `BEGIN; ${KEPT_PLANS};
     SELECT id, status::text AS status, "organizationId", "completedAt" FROM "DeletionRequest" WHERE id IN (${list}) ORDER BY id FOR UPDATE`,
  )) as unknown as pg.QueryResult<LockedParent & { id: string }>[];
  return new Map((results[3]?.rows ?? []).map(({ id, ...parent }) => [id, parent]));
}

interface SiblingRow extends ChildState {
  id: string;
  deletionRequestId: string;
  /** This row is one of the steps, written by this statement. */
  updated: boolean;
}

/**
 * In one statement: writes each step's new state and releases its lease (only where this
 * worker still holds it), appends the audit entries of the steps it wrote (a status poll that
 * says what the integration request's latest entry says folds into it: see `AuditRow.foldRepeats`;
 * the parents' row locks, held since `beginAndLockParents`, keep two workers from both reading
 * the same latest entry), and returns
 * every integration request of the steps' parents as it now is. A key absent from a step's
 * `set` leaves that column as it is. The ids are also given as an array ($5): a join with
 * a JSON input alone is planned as if it had 100 rows, which on a small table means a
 * sequential scan.
 */
async function writeSteps(query: Query, workerId: string, steps: FinishingStep[]): Promise<SiblingRow[]> {
  const updates = steps.map((s) => ({ id: s.id, set: s.data }));
  const entries = steps.flatMap((s) =>
    s.entries.map((e) =>
      // The bulk of the details (the recorded exchanges among it) is stored compressed.
      withDetailsPacked({
        ...e,
        integrationRequestId: e.integrationRequestId ?? s.id,
        outcome: e.outcome ?? null,
        foldRepeats: e.foldRepeats ?? false,
      }),
    ),
  );
  const entryColumns = `a("organizationId" text, "deletionRequestId" text, "integrationRequestId" text, action text, outcome text, summary text, details jsonb, exchanges text, "foldRepeats" boolean)`;
  const column = (name: string, value: string) =>
    `"${name}" = CASE WHEN i.s ? '${name}' THEN ${value} ELSE ir."${name}" END`;
  return query<SiblingRow>(
    `WITH input AS (
       SELECT e.v->>'id' AS id, e.v->'set' AS s FROM jsonb_array_elements($1::jsonb) AS e(v)
     ), step AS (
       UPDATE "IntegrationRequest" ir
          SET "lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ${NOW_UTC},
              ${column('status', `(i.s->>'status')::"RequestStatus"`)},
              ${column('trackingId', `i.s->>'trackingId'`)},
              ${column('lastError', `i.s->>'lastError'`)},
              ${column('attempts', `(i.s->>'attempts')::int`)},
              ${column('nextAttemptAt', utc(`(i.s->>'nextAttemptAt')`))},
              ${column('completedAt', utc(`(i.s->>'completedAt')`))},
              ${column('evidence', `i.s->'evidence'`)}
         FROM input i WHERE ir.id = ANY($5::text[]) AND ir.id = i.id AND ir."lockedBy" = $2
       RETURNING ir.id, ir.status::text AS status, ir."completedAt"
     ), entry AS (
       SELECT n.ord, a.* FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS n(v, ord), jsonb_to_record(n.v) AS ${entryColumns}
        WHERE a."integrationRequestId" IN (SELECT id FROM step)
     ), folded AS (
       -- An integration request's entries are written from its creation on: the audit log's
       -- months before it are not searched.
       UPDATE "AuditLog" latest
          SET "repeatCount" = latest."repeatCount" + 1, "lastRepeatedAt" = ${NOW_UTC}
         FROM entry e JOIN "IntegrationRequest" created ON created.id = e."integrationRequestId"
        WHERE e."foldRepeats"
          AND latest."organizationId" = e."organizationId"
          AND latest."createdAt" >= created."createdAt"
          AND latest.id = (SELECT max(l.id) FROM "AuditLog" l
                            WHERE l."deletionRequestId" = e."deletionRequestId" AND l."integrationRequestId" = e."integrationRequestId"
                              AND l."createdAt" >= created."createdAt")
          AND latest.action = e.action AND latest.outcome IS NOT DISTINCT FROM e.outcome AND latest.summary = e.summary
          AND latest.details->>'result' IS NOT DISTINCT FROM e.details->>'result'
       RETURNING e.ord
     ), audit AS (
       INSERT INTO "AuditLog" (${AUDIT_COLUMNS}, exchanges)
       SELECT e."organizationId", e."deletionRequestId", e."integrationRequestId", 'system', NULL, e.action, e.outcome, e.summary, e.details, ${NOW_UTC},
              decode(e.exchanges, 'base64')
         FROM entry e
        WHERE e.ord NOT IN (SELECT ord FROM folded)
        ORDER BY e.ord
       RETURNING 1
     )
     SELECT sibling.id, sibling."deletionRequestId", COALESCE(step.status, sibling.status::text) AS status,
            CASE WHEN step.id IS NULL THEN sibling."completedAt" ELSE step."completedAt" END AS "completedAt",
            step.id IS NOT NULL AS updated
       FROM "IntegrationRequest" sibling LEFT JOIN step ON step.id = sibling.id
      WHERE sibling."deletionRequestId" = ANY($4::text[])`,
    [
      storableJson(updates),
      workerId,
      storableJson(entries),
      [...new Set(steps.map((s) => s.deletionRequestId))],
      steps.map((s) => s.id),
    ],
  );
}
