import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { readAuditTrail } from './audit-entry';
import { sealAuditChain, verifyAuditChain } from './audit-chain';
import { recordedDetails, storedDetails, withDetailsPacked } from './recorded-exchanges';
import { recordAudit } from './record-audit';

/**
 * An entry's bulky details (a step's recorded exchanges and the rest around them) are stored
 * compressed, apart from the keys SQL reads; the details digest, the hash chain, the append-only
 * guard and retention cover them as they cover the rest.
 */
let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'exchanges');
});
afterAll(() => env?.close());

const db = () => env.db.prisma;

/** An exchange as a vendor answers: a JSON body of a few KB. */
const exchange = (i: number) => ({
  kind: 'http',
  request: {
    method: 'POST',
    url: `https://api.vendor.example/v1/erase/${i}`,
    body: `{"email":"person${i}@example.com"}`,
  },
  response: {
    status: 200,
    headers: { 'x-request-id': `req_${i}` },
    body: JSON.stringify({
      id: `rec_${i}`,
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, n) => [`property_${n}`, `value ${n} of ${i}`])),
    }),
  },
  durationMs: 12,
});

/** Changes a row behind the trigger's back, as someone with superuser rights could. */
async function tamper(sql: string) {
  await db().$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL session_replication_role = replica`);
    await tx.$executeRawUnsafe(sql);
  });
}

describe('bulky audit details stored compressed', () => {
  it('keeps in jsonb only the keys SQL reads, compresses the rest, and reads them back whole in jsonb key order', () => {
    const details = { result: 'completed', attempt: 1, exchanges: [exchange(1)], evidence: { reference: 'rec_1' } };
    const stored = storedDetails(details);
    // Nothing in it is read by SQL: the whole is compressed.
    expect(stored.details).toBeNull();
    expect(recordedDetails(null, stored.packed)).toEqual(details);
    // A status poll that may fold into the entry before it keeps the result the fold compares.
    const poll = withDetailsPacked({ details, foldRepeats: true });
    expect(poll.details).toEqual({ result: 'completed' });
    expect(withDetailsPacked({ details, foldRepeats: false }).details).toBeNull();
    expect(recordedDetails(poll.details, Buffer.from(poll.exchanges!, 'base64'))).toEqual(details);
    expect(stored.packed!.length).toBeLessThan(JSON.stringify(details.exchanges).length / 2);
    const read = recordedDetails({ result: 'completed' }, storedDetails(details, new Set(['result'])).packed);
    expect(read).toEqual(details);
    // As jsonb would have returned the whole: shorter keys first.
    expect(Object.keys(read as object)).toEqual(['result', 'attempt', 'evidence', 'exchanges']);
    // A request's creation: its workspace stays where the audit log screen's filter reads it.
    const created = {
      workspaceId: 'ws_1',
      regulation: 'GDPR',
      integrations: [1, 2, 3].map((n) => ({ id: `int_${n}`.padEnd(24, 'x'), name: `CRM ${n}`, type: 'WEBHOOK' })),
    };
    expect(storedDetails(created).details).toEqual({ workspaceId: 'ws_1' });
    expect(recordedDetails({ workspaceId: 'ws_1' }, storedDetails(created).packed)).toEqual(created);
    // Too little to gain from compressing: details as they are.
    expect(storedDetails({ exchanges: [], result: 'x', attempt: 2 })).toEqual({
      details: { exchanges: [], result: 'x', attempt: 2 },
      packed: null,
    });
    expect(storedDetails(null)).toEqual({ details: null, packed: null });
    // Entries of the first version stored the exchanges list alone.
    const list = zlib.brotliCompressSync(JSON.stringify(details.exchanges));
    expect(recordedDetails({ result: 'completed', attempt: 1, evidence: { reference: 'rec_1' } }, list)).toEqual(
      details,
    );
    // Bytes that are not what was stored do not fail the reader.
    expect(recordedDetails({ result: 'x' }, new Uint8Array([1, 2, 3]))).toEqual({
      result: 'x',
      exchanges: 'the recorded details could not be read',
    });
  });

  it('are stored compressed, read back whole, covered by the chain, and only removable', async () => {
    const request = await db().deletionRequest.create({
      data: {
        id: `dr_exchanges_${Date.now()}`,
        organizationId: org.organization.id,
        workspaceId: org.workspace.id,
        identifier: 'person1@example.com',
        identifierHmac: Buffer.from('x'),
        channel: 'API',
      },
    });
    const details = { result: 'completed', exchanges: [exchange(1), exchange(2)] };
    await recordAudit(db(), null, {
      organizationId: org.organization.id,
      deletionRequestId: request.id,
      action: 'deletion.requested',
      summary: 'Attempt 1: completed',
      details,
    });
    const row = await db().auditLog.findFirstOrThrow({ where: { deletionRequestId: request.id } });
    expect(row.details).toBeNull();
    expect(row.exchanges).not.toBeNull();
    // What every reader gets (the API's trail, the detail, the export): the details as recorded.
    const { rows } = await readAuditTrail(db(), org.organization.id, request.id, { limit: 10 });
    expect(rows[0]!.details).toEqual(details);
    expect(rows[0]).not.toHaveProperty('exchanges');

    await sealAuditChain(db());
    expect(await verifyAuditChain(db(), { organizationId: org.organization.id })).toMatchObject({ ok: true });

    // Changing the stored exchanges is refused, and done behind the guard's back it breaks the chain.
    await expect(
      db().$executeRawUnsafe(`UPDATE "AuditLog" SET exchanges = '\\x00'::bytea WHERE id = ${row.id}`),
    ).rejects.toThrow(/can only be removed/);
    await tamper(`UPDATE "AuditLog" SET exchanges = '\\x00'::bytea WHERE id = ${row.id}`);
    const report = await verifyAuditChain(db(), { organizationId: org.organization.id });
    expect(report.breaks[0]).toMatchObject({ entryId: String(row.id), reason: expect.stringMatching(/altered/) });
    await tamper(
      `UPDATE "AuditLog" SET exchanges = decode('${Buffer.from(row.exchanges!).toString('hex')}', 'hex') WHERE id = ${row.id}`,
    );
    expect((await verifyAuditChain(db(), { organizationId: org.organization.id })).ok).toBe(true);

    // Removing only the exchanges is an alteration, not a retention.
    await db().$executeRawUnsafe(`UPDATE "AuditLog" SET exchanges = NULL WHERE id = ${row.id}`);
    expect((await verifyAuditChain(db(), { organizationId: org.organization.id })).breaks[0]).toMatchObject({
      entryId: String(row.id),
      reason: expect.stringMatching(/details were altered/),
    });
  });
});
