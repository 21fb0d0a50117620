import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@shared/statuses';
import { ID_PREFIX, newId } from '../../lib/ids';
import { sealAuditChain } from '../../services/audit/audit-chain';
import { recordAudit } from '../../services/audit/record-audit';
import { createPersonalAccessToken } from '../../services/tokens/personal-access-tokens';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';

let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'chain-a');
  other = await seedOrganization(env.deps, 'chain-b');
  await append(org.organization.id, 6);
  await append(other.organization.id, 2);
});
afterAll(() => env?.close());

const db = () => env.db.prisma;
const owner = () => callerFor(env.deps, { pat: org.pat }).caller;
const otherOwner = () => callerFor(env.deps, { pat: other.pat }).caller;

async function callerWithRole(role: Role) {
  const id = newId(ID_PREFIX.user);
  const user = await db().user.create({
    data: { id, email: `${role.toLowerCase()}-${id}@example.com`, name: role, passwordHash: 'x' },
  });
  await db().membership.create({
    data: { id: newId(ID_PREFIX.membership), userId: user.id, organizationId: org.organization.id, role },
  });
  const pat = await createPersonalAccessToken(
    db(),
    { userId: user.id, organizationId: org.organization.id, role, via: 'cli' },
    { name: 't' },
  );
  return callerFor(env.deps, { pat: pat.token }).caller;
}

async function append(organizationId: string, n: number) {
  for (let i = 0; i < n; i++)
    await recordAudit(db(), null, { organizationId, action: 'test.entry', summary: `entry ${i}`, details: { i } });
}

/** Changes a row behind the append-only trigger's back, as someone with superuser rights could. */
async function tamper(sql: string, ...values: unknown[]) {
  await db().$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
    await tx.$executeRawUnsafe(sql, ...values);
  });
}

const countOf = (organizationId: string) => db().auditLog.count({ where: { organizationId } });

describe('dashboard.verifyAuditChain', () => {
  it('counts entries awaiting sealing, then reports the sealed chain as verified', async () => {
    const before = await owner().dashboard.verifyAuditChain();
    expect(before).toMatchObject({
      ok: true,
      verifiedEntries: 0,
      unsealedEntries: await countOf(org.organization.id),
      droppedEntries: 0,
      firstBreak: null,
    });

    await sealAuditChain(db());
    const after = await owner().dashboard.verifyAuditChain();
    expect(after).toMatchObject({
      ok: true,
      verifiedEntries: await countOf(org.organization.id),
      unsealedEntries: 0,
      firstBreak: null,
    });
    expect(Date.parse(after.checkedAt)).not.toBeNaN();

    await append(org.organization.id, 1);
    expect(await owner().dashboard.verifyAuditChain()).toMatchObject({
      ok: true,
      verifiedEntries: after.verifiedEntries,
      unsealedEntries: 1,
    });
    await sealAuditChain(db());
  });

  it('is for admins and owners, like the audit log', async () => {
    expect((await (await callerWithRole('ADMIN')).dashboard.verifyAuditChain()).ok).toBe(true);
    await expect((await callerWithRole('MEMBER')).dashboard.verifyAuditChain()).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('names the first altered entry, and another organization only ever sees its own intact chain', async () => {
    await sealAuditChain(db());
    const third = await db().auditLog.findFirstOrThrow({
      where: { organizationId: org.organization.id, chainSeq: 3n },
    });
    await tamper(`UPDATE "AuditLog" SET "summary" = 'nothing happened' WHERE "id" = $1`, third.id);
    try {
      const broken = await owner().dashboard.verifyAuditChain();
      expect(broken).toMatchObject({
        ok: false,
        verifiedEntries: 2,
        firstBreak: { entryId: String(third.id), chainSeq: '3', reason: expect.stringMatching(/hash does not match/) },
      });

      const seenByOther = await otherOwner().dashboard.verifyAuditChain();
      expect(seenByOther).toMatchObject({
        ok: true,
        verifiedEntries: await countOf(other.organization.id),
        unsealedEntries: 0,
        firstBreak: null,
      });
      const text = JSON.stringify(seenByOther);
      expect(text).not.toContain(org.organization.id);
      expect(text).not.toContain(`"${third.id}"`);
    } finally {
      await tamper(`UPDATE "AuditLog" SET "summary" = $1 WHERE "id" = $2`, third.summary, third.id);
    }
    expect(await owner().dashboard.verifyAuditChain()).toMatchObject({ ok: true, firstBreak: null });
  });

  it('reports the entry after a deleted one', async () => {
    await sealAuditChain(db());
    const removed = await db().auditLog.findFirstOrThrow({
      where: { organizationId: org.organization.id, chainSeq: 4n },
    });
    const next = await db().auditLog.findFirstOrThrow({ where: { organizationId: org.organization.id, chainSeq: 5n } });
    await tamper(`DELETE FROM "AuditLog" WHERE "id" = $1`, removed.id);
    expect(await owner().dashboard.verifyAuditChain()).toMatchObject({
      ok: false,
      verifiedEntries: 3,
      firstBreak: { entryId: String(next.id), chainSeq: '5', reason: expect.stringMatching(/missing/) },
    });
    expect((await otherOwner().dashboard.verifyAuditChain()).ok).toBe(true);
  });
});
