import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { createKeyring, encryptSecret } from '../../lib/crypto';
import { openSecret, sealSecret } from './secret-store';

let env: TestEnv;
let a: Awaited<ReturnType<typeof seedOrganization>>;
let b: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  a = await seedOrganization(env.deps, 'envelope-a');
  b = await seedOrganization(env.deps, 'envelope-b');
});
afterAll(() => env?.close());

const deps = () => ({ prisma: env.db.prisma, keyring: env.deps.keyring });

describe('envelope encryption', () => {
  it("seals with the organization's own data key, wrapped by the master key; the key id travels with the ciphertext", async () => {
    const sealed = await sealSecret(deps(), a.organization.id, 's3cr3t-token', 'account:acc_1');
    const [version, dataKeyId] = sealed.split(':');
    expect(version).toBe('v2');
    expect(sealed).not.toContain('s3cr3t');
    const keys = await env.db.prisma.organizationKey.findMany({ where: { organizationId: a.organization.id } });
    expect(keys).toHaveLength(1); // the workspace key of the seed already created it: one key per organization
    expect(keys[0]!.id).toBe(dataKeyId);
    expect(keys[0]!.masterKeyId).toBe(env.deps.keyring.keyId);
    expect(keys[0]!.wrappedKey).toMatch(/^[\w-]+:[\w-]+:[\w-]+$/);
    expect(await openSecret(deps(), a.organization.id, sealed, 'account:acc_1')).toBe('s3cr3t-token');
    const other = await sealSecret(deps(), b.organization.id, 's3cr3t-token', 'account:acc_1');
    expect(other.split(':')[1]).not.toBe(dataKeyId);
  });

  it('a ciphertext copied to another record or organization does not open', async () => {
    const sealed = await sealSecret(deps(), a.organization.id, 'credentials', 'account:acc_1');
    await expect(openSecret(deps(), a.organization.id, sealed, 'account:acc_2')).rejects.toThrow(
      /another record or was altered/,
    );
    await expect(openSecret(deps(), b.organization.id, sealed, 'account:acc_1')).rejects.toThrow(/does not have/);
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'B' : 'A') + sealed.slice(-1);
    await expect(openSecret(deps(), a.organization.id, tampered, 'account:acc_1')).rejects.toThrow();
  });

  it('a wrong master key is a clear error, never garbage', async () => {
    const sealed = await sealSecret(deps(), a.organization.id, 'credentials', 'account:acc_1');
    const wrong = { prisma: env.db.prisma, keyring: createKeyring(randomBytes(32)) };
    await expect(openSecret(wrong, a.organization.id, sealed, 'account:acc_1')).rejects.toThrow(
      /wrapped by master key .* but ENCRYPTION_KEY is/,
    );
  });

  it('still reads secrets of the first format (master key directly)', async () => {
    const legacy = encryptSecret(env.deps.keyring, 'old secret', 'account:acc_9');
    expect(legacy.startsWith('v1:')).toBe(true);
    expect(await openSecret(deps(), a.organization.id, legacy, 'account:acc_9')).toBe('old secret');
  });

  it('workspace API keys are sealed with the data key and revealed through it', async () => {
    const row = await env.db.prisma.workspace.findUniqueOrThrow({ where: { id: a.workspace.id } });
    expect(row.apiKeyCipher.startsWith('v2:')).toBe(true);
    expect(row.apiKeyCipher).not.toContain(a.workspaceApiKey);
    const { caller } = callerFor(env.deps, { pat: a.pat });
    expect((await caller.workspaces.revealApiKey({ workspaceId: a.workspace.id })).apiKey).toBe(a.workspaceApiKey);
    const rotated = await caller.workspaces.rotateApiKey({ workspaceId: a.workspace.id });
    expect((await caller.workspaces.revealApiKey({ workspaceId: a.workspace.id })).apiKey).toBe(rotated.apiKey);
  });
});
