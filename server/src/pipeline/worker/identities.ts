import { normaliseIdentifier } from '@shared/identifiers';
import {
  LookupError,
  runIdentityLookup,
  type FoundIdentifier,
  type IdentityLookupConfig,
} from '../../identity-lookups/run-lookup';
import { outboundTools } from '../../integrations/runtime/outbound';
import { secretValues } from '../../integrations/runtime/redaction';
import { PermanentError, TransientError, type Exchange, type Outcome } from '../../integrations/types';
import { hashHex } from '../../lib/crypto';
import { ID_PREFIX, newId } from '../../lib/ids';
import { openAccount } from '../../services/accounts/secrets';
import { openSecret } from '../../services/keys/secret-store';
import {
  identifierHashes,
  organizationIdentifierTypes,
  webhookLookupSecretContext,
} from '../../services/identities/identifier-values';
import type { Claimed } from '../store/claim';
import {
  leaseIdentityLookups,
  recordFoundIdentifiers,
  recordLookupFailure,
  releaseIdentityLookups,
  type FoundIdentifierRow,
  type LookupLease,
} from '../store/identities';
import { pgQuery } from '../store/sql';
import type { EngineDeps } from './deps';

/** Time the lookups of one request may take before another step may run them again. */
const LOOKUP_LEASE_MS = 5 * 60_000;
/** How soon a step waiting for another step's lookups looks again (no attempt is used). */
const WAIT_FOR_LOOKUPS_MS = 1_000;

/**
 * Runs the workspace's identity lookups before the first step of a request sends anything:
 * once per request (a lease on the request), in order, each adding what it finds for the
 * next. null when the identifiers are complete; a wait while another step runs them. A lookup
 * that fails throws as a step does (transient: retried; permanent: this step fails), and is on the trail.
 */
export async function ensureIdentities(deps: EngineDeps, ir: Claimed, trail: Exchange[]): Promise<Outcome | null> {
  if (!ir.lookupsPending) return null;
  const query = pgQuery(deps.pool);
  const lease = await leaseIdentityLookups(query, ir.deletionRequestId, LOOKUP_LEASE_MS);
  if (lease === null) return null;
  if (lease === 'busy')
    return {
      kind: 'deferred',
      until: new Date(Date.now() + WAIT_FOR_LOOKUPS_MS),
      message: "Waiting for the workspace's identity lookups",
    };
  const request = { id: ir.deletionRequestId, organizationId: lease.organizationId };
  let current = 'the identity lookups';
  try {
    const { rows, summary } = await runLookups(deps, lease, request.id, trail, (name) => (current = `"${name}"`));
    await recordFoundIdentifiers(query, request, rows, summary);
    return null;
  } catch (error) {
    await releaseIdentityLookups(query, request.id);
    const message = `Identity lookup ${current} failed: ${(error as Error).message}`;
    await recordLookupFailure(query, request, message);
    if (error instanceof LookupError && error.transient) throw new TransientError(message, error.retryAfterMs);
    if (error instanceof TransientError) throw new TransientError(message, error.retryAfterMs);
    throw new PermanentError(message);
  }
}

async function runLookups(
  deps: EngineDeps,
  lease: LookupLease,
  deletionRequestId: string,
  trail: Exchange[],
  running: (name: string) => void,
): Promise<{ rows: FoundIdentifierRow[]; summary: string }> {
  const lookups = await deps.prisma.identityLookup.findMany({
    where: { workspaceId: lease.workspaceId, enabled: true },
    orderBy: [{ position: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
  });
  const knownTypes = new Set(await organizationIdentifierTypes(deps.prisma, lease.organizationId));
  const existing = await deps.prisma.requestIdentifier.findMany({
    where: { deletionRequestId, value: { not: null }, type: { not: null } },
    select: { type: true, value: true, valueHmac: true },
  });
  const known: FoundIdentifier[] = existing.map((row) => ({ type: row.type!, value: row.value! }));
  const seen = new Set(existing.map((row) => hashHex(row.valueHmac)));
  const rows: FoundIdentifierRow[] = [];
  let ignored = 0;
  for (const lookup of lookups) {
    running(lookup.name);
    const config = lookup.config as unknown as IdentityLookupConfig;
    const env: Parameters<typeof runIdentityLookup>[2] = {};
    if (config.kind !== 'webhook') {
      if (!lookup.accountId) throw new PermanentError('it has no account');
      const account = await openAccount(deps, lease.organizationId, lookup.accountId);
      const tools = outboundTools(deps.policy, trail, secretValues(account.type, account.secrets));
      Object.assign(env, { secrets: account.secrets, resolveHost: tools.resolveHost, http: tools.http, trail });
    } else {
      const secret = lookup.secretCipher
        ? await openSecret(deps, lease.organizationId, lookup.secretCipher, webhookLookupSecretContext(lookup.id))
        : null;
      const tools = outboundTools(deps.policy, trail, secret ? [secret] : []);
      Object.assign(env, { http: tools.http, signingSecrets: secret ? [secret] : [] });
    }
    for (const found of await runIdentityLookup(config, known, env)) {
      const normalised = knownTypes.has(found.type) ? normaliseIdentifier(found.type, found.value) : null;
      if (!normalised?.ok) {
        ignored++;
        continue;
      }
      const hashes = identifierHashes(deps.keyring, found.type, normalised.value);
      if (seen.has(hashes.valueHmac)) continue;
      seen.add(hashes.valueHmac);
      known.push({ type: found.type, value: normalised.value });
      rows.push({
        id: newId(ID_PREFIX.requestIdentifier),
        type: found.type,
        value: normalised.value,
        ...hashes,
        primary: false,
        source: lookup.name,
        lookupId: lookup.id,
      });
    }
  }
  const summary =
    `Identity lookups ran (${lookups.length}): ${rows.length} identifier(s) found` +
    (ignored > 0 ? `, ${ignored} ignored (a type the organization does not have, or a value its type refuses)` : '');
  return { rows, summary };
}
