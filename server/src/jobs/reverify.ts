import { INTEGRATION_TYPES, type IntegrationType } from '@shared/statuses';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { isDatabaseUnreachable } from '../db/connections';
import { dbQuery, utc } from '../db/query';
import { driverFor } from '../integrations/registry';
import { identifierRedactor } from '../integrations/runtime/redaction';
import { PermanentError, TransientError, type Exchange, type ReverifyResult } from '../integrations/types';
import type { Keyring } from '../lib/crypto';
import type { Logger } from '../lib/logger';
import type { OutboundPolicy } from '../lib/ssrf';
import { integrationSubject, type Subject } from '../pipeline/store/identities';
import { identifierLabel } from '../services/integrations/tracked-jobs';
import { recordReverification } from '../pipeline/store/reverify';
import { openDestination } from '../services/integrations/destination';

export interface ReverifyDeps {
  prisma: Db;
  keyring: Keyring;
  config: Config;
  policy: OutboundPolicy;
  log: Logger;
}

const BATCH = 100;

/** Integration types whose driver can look again (the data stores): from the registry, no branching on a type. */
const reverifiableTypes = (): IntegrationType[] =>
  INTEGRATION_TYPES.filter((type) => driverFor(type).reverify !== undefined);

interface Due {
  id: string;
  deletionRequestId: string;
  organizationId: string;
  identifier: string;
  integrationType: IntegrationType;
  configSnapshot: unknown;
  accountId: string | null;
  currentAccountId: string | null;
  hasIntegration: boolean;
  /** Null when the integration was deleted. */
  integrationId: string | null;
  /** The type of identifier the integration was sent; null: the request's primary identifier. */
  consumesType: string | null;
}

/**
 * Re-verification: for organizations with `reverifyAfterDays`, every SUCCESS integration
 * request of a store integration finished at least that many days ago, not re-verified yet,
 * whose identifier retention has not removed, runs its driver's verification again. Rows that
 * came back set `reappearedAt` and raise `request.reappeared` (a notification). A transient
 * failure (database unreachable) is left for the next run; a permanent one is recorded.
 */
export async function runReverification(
  deps: ReverifyDeps,
  now = new Date(),
  { batch = BATCH }: { batch?: number } = {},
): Promise<{ verified: number; reappeared: number; failed: number }> {
  const result = { verified: 0, reappeared: 0, failed: 0 };
  const types = reverifiableTypes();
  if (types.length === 0) return result;
  const query = dbQuery(deps.prisma);
  // Keyset paging in (completedAt, id) order: a row postponed (its store unreachable) stays due
  // for the next run without holding this one back, however many such rows come first.
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const due: (Due & { cursorAt: string })[] = await query<Due & { cursorAt: string }>(
      `SELECT ir.id, ir."deletionRequestId", dr."organizationId", dr.identifier, ir."integrationType"::text AS "integrationType", cs.config AS "configSnapshot",
              ir."accountId", i."accountId" AS "currentAccountId", i.id IS NOT NULL AS "hasIntegration", i.id AS "integrationId", ir."consumesType", ir."completedAt"::text AS "cursorAt"
         FROM "IntegrationRequest" ir
         JOIN "DeletionRequest" dr ON dr.id = ir."deletionRequestId"
         JOIN "ConfigSnapshot" cs ON cs.id = ir."configSnapshotId"
         JOIN "Organization" o ON o.id = dr."organizationId"
         LEFT JOIN "Integration" i ON i.id = ir."integrationId"
        WHERE o."reverifyAfterDays" IS NOT NULL AND ir.status = 'SUCCESS' AND ir."reverifiedAt" IS NULL
          AND ir."completedAt" <= ${utc('$1')} - make_interval(days => o."reverifyAfterDays")
          AND dr.identifier IS NOT NULL AND NOT dr.hashed AND ir."integrationType"::text = ANY($2::text[])
          AND ($3::text IS NULL OR (ir."completedAt", ir.id) > ($3::timestamp(3), $4::text))
        ORDER BY ir."completedAt", ir.id
        LIMIT $5`,
      [now.toISOString(), types, after?.at ?? null, after?.id ?? null, batch],
    );
    if (due.length === 0) return result;
    for (const ir of due) {
      const outcome = await reverifyOne(deps, ir, now);
      if (outcome) result[outcome]++;
    }
    const last = due.at(-1)!;
    after = { at: last.cursorAt, id: last.id };
  }
}

async function reverifyOne(
  deps: ReverifyDeps,
  ir: Due,
  now: Date,
): Promise<'verified' | 'reappeared' | 'failed' | null> {
  const trail: Exchange[] = [];
  const base = {
    organizationId: ir.organizationId,
    deletionRequestId: ir.deletionRequestId,
    integrationRequestId: ir.id,
  };
  // The identifier and the account's declared secrets are blanked out of what is recorded and logged, as for a deletion step.
  let redact = identifierRedactor(ir.identifier);
  try {
    // The values the deletion was sent (every user id of the person, say, not the email the request was made with).
    const subject = await integrationSubject(dbQuery(deps.prisma), ir);
    redact = identifierRedactor(subject.redact);
    if (subject.values.length === 0)
      throw new PermanentError(`no identifier of type ${ir.consumesType} of this request is stored any more`);
    const opened = await openDestination(
      deps,
      {
        type: ir.integrationType,
        config: ir.configSnapshot,
        accountId: ir.hasIntegration ? ir.currentAccountId : ir.accountId,
        organizationId: ir.organizationId,
        integration: ir.integrationId ? { id: ir.integrationId } : null,
        request: {
          integrationType: ir.integrationType,
          integrationRequestId: ir.id,
          deletionRequestId: ir.deletionRequestId,
        },
        subject: subject.redact,
      },
      trail,
      now,
    );
    const { destination } = opened;
    redact = opened.redact;
    const found = await lookAgain(subject, (value, callKey) =>
      destination.driver.reverify!(opened.context({ identifier: value, trackingId: null, callKey })),
    );
    await recordReverification(
      dbQuery(deps.prisma),
      {
        ...base,
        ok: true,
        remaining: found.remaining,
        summary: redact(found.message),
        details: { counts: found.counts, exchanges: trail },
      },
      now,
    );
    return found.remaining > 0 ? 'reappeared' : 'verified';
  } catch (error) {
    // The customer's store is down for a while, or our own database is (its account, its
    // integration or the outcome could not be read or written): look again at the next run.
    if (error instanceof TransientError || (!(error instanceof PermanentError) && isDatabaseUnreachable(error))) {
      deps.log.warn(
        { integrationRequestId: ir.id, err: redact((error as Error).message) },
        're-verification postponed',
      );
      return null;
    }
    const message = `Re-verification could not run: ${redact((error as Error).message)}`;
    await recordReverification(
      dbQuery(deps.prisma),
      { ...base, ok: false, remaining: 0, summary: message, details: { exchanges: trail } },
      now,
    );
    return 'failed';
  }
}

/** The proof run again for each value the deletion was sent, added up (one value: its own result). */
async function lookAgain(
  subject: Subject,
  reverify: (value: string, callKey: string) => Promise<ReverifyResult>,
): Promise<ReverifyResult> {
  const each: ReverifyResult[] = [];
  for (const { value, callKey } of subject.values) each.push(await reverify(value, callKey));
  if (each.length === 1) return each[0]!;
  const counts: Record<string, number> = {};
  for (const result of each)
    for (const [key, count] of Object.entries(result.counts)) counts[key] = (counts[key] ?? 0) + count;
  return {
    remaining: each.reduce((sum, result) => sum + result.remaining, 0),
    counts,
    message: each.map((result, at) => `${identifierLabel(at, each.length)}: ${result.message}`).join('; '),
  };
}
