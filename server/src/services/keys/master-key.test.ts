import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createKeyring, encryptSecret, identifierHmac } from '../../lib/crypto';
import { openSecret, sealSecret } from './secret-store';
import { createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { workspaceApiKeyContext } from '../workspaces/workspaces';
import { KeyConfigurationError, keyStatus, loadKeyring, rotateMasterKey } from './master-key';

let env: TestEnv;
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const third = randomBytes(32);
const configWith = (current: Buffer, previous: Buffer[] = []) => ({
  encryptionKey: current,
  previousEncryptionKeys: previous,
});

beforeAll(async () => {
  env = await createTestEnv({ ENCRYPTION_KEY: oldKey.toString('base64') });
});
afterAll(() => env?.close());

describe('master key', () => {
  it('rotates without downtime: new key + previous key, re-wrap, then the new key alone', async () => {
    const db = env.db.prisma;
    const before = await loadKeyring(db, configWith(oldKey));
    const org = await seedOrganization({ ...env.deps, keyring: before }, 'rotation');
    const sealed = await sealSecret(
      { prisma: db, keyring: before },
      org.organization.id,
      'db-password',
      'account:acc_r',
    );
    const legacy = encryptSecret(before, 'legacy-ws-key', workspaceApiKeyContext(org.workspace.id));
    await db.workspace.update({ where: { id: org.workspace.id }, data: { apiKeyCipher: legacy } });
    const hmacBefore = identifierHmac(before, 'jane@example.com');

    // Step 1: processes restart with ENCRYPTION_KEY=new and PREVIOUS_ENCRYPTION_KEYS=old; everything still opens.
    const during = await loadKeyring(db, configWith(newKey, [oldKey]));
    expect(await openSecret({ prisma: db, keyring: during }, org.organization.id, sealed, 'account:acc_r')).toBe(
      'db-password',
    );
    expect((await keyStatus(db, during)).dataKeysByMasterKey).toEqual({ [before.keyId]: 1 });

    // Step 2: keys:rotate-master re-wraps every data key and service key (and re-seals first-format secrets).
    const result = await rotateMasterKey(db, during);
    expect(result).toMatchObject({
      masterKeyId: during.keyId,
      rewrappedDataKeys: 1,
      rewrappedServiceKeys: 1,
      resealedLegacySecrets: 1,
    });
    expect(await rotateMasterKey(db, during)).toMatchObject({
      rewrappedDataKeys: 0,
      rewrappedServiceKeys: 0,
      resealedLegacySecrets: 0,
    });
    const status = await keyStatus(db, during);
    expect(status).toMatchObject({
      dataKeysByMasterKey: { [during.keyId]: 1 },
      serviceKeysByMasterKey: { [during.keyId]: 1 },
      legacySecrets: 0,
    });

    // Step 3: the old key is removed; secrets, the re-sealed workspace key and identifier HMACs are unchanged.
    const after = await loadKeyring(db, configWith(newKey));
    expect(await openSecret({ prisma: db, keyring: after }, org.organization.id, sealed, 'account:acc_r')).toBe(
      'db-password',
    );
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: org.workspace.id } });
    expect(ws.apiKeyCipher.startsWith('v2:')).toBe(true);
    expect(
      await openSecret(
        { prisma: db, keyring: after },
        org.organization.id,
        ws.apiKeyCipher,
        workspaceApiKeyContext(org.workspace.id),
      ),
    ).toBe('legacy-ws-key');
    expect(identifierHmac(after, 'jane@example.com')).toBe(hmacBefore);
    expect(identifierHmac(createKeyring(newKey), 'jane@example.com')).not.toBe(hmacBefore); // the pepper came from the database

    // The old key alone no longer starts the service, with a message that says why.
    await expect(loadKeyring(db, configWith(oldKey))).rejects.toThrow(KeyConfigurationError);
    await expect(loadKeyring(db, configWith(oldKey))).rejects.toThrow(
      /wrapped by master key .*, which is neither ENCRYPTION_KEY/,
    );
  });

  it('rotates in one step with --new-key, and a wrong or unknown key never starts', async () => {
    const db = env.db.prisma;
    const current = await loadKeyring(db, configWith(newKey));
    const result = await rotateMasterKey(db, current, third);
    expect(result.masterKeyId).toBe(createKeyring(third).keyId);
    await expect(loadKeyring(db, configWith(randomBytes(32)))).rejects.toThrow(/neither ENCRYPTION_KEY/);
    await expect(loadKeyring(db, configWith(newKey))).rejects.toThrow(KeyConfigurationError);
    const ok = await loadKeyring(db, configWith(third));
    expect(ok.keyId).toBe(result.masterKeyId);
  });

  it('an altered key row is detected at start-up, not used', async () => {
    const db = env.db.prisma;
    const row = await db.organizationKey.findFirstOrThrow();
    const [iv, tag, body] = row.wrappedKey.split(':');
    await db.organizationKey.update({
      where: { id: row.id },
      data: { wrappedKey: [iv, tag, body!.slice(0, -2) + (body!.endsWith('AA') ? 'BB' : 'AA')].join(':') },
    });
    await expect(loadKeyring(db, configWith(third))).rejects.toThrow(
      /does not unwrap with master key .*: wrong ENCRYPTION_KEY, or the key row was altered/,
    );
    await db.organizationKey.update({ where: { id: row.id }, data: { wrappedKey: row.wrappedKey } });
    await expect(loadKeyring(db, configWith(third))).resolves.toBeTruthy();
  });

  it('configuration refuses a missing or malformed key with a clear message', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://x' })).toThrow(/ENCRYPTION_KEY is required/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://x', ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(
      /exactly 32 bytes/,
    );
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgresql://x',
        ENCRYPTION_KEY: oldKey.toString('base64'),
        PREVIOUS_ENCRYPTION_KEYS: 'nope',
      }),
    ).toThrow(/PREVIOUS_ENCRYPTION_KEYS/);
    const config = loadConfig({
      DATABASE_URL: 'postgresql://x',
      ENCRYPTION_KEY: newKey.toString('base64'),
      PREVIOUS_ENCRYPTION_KEYS: `${oldKey.toString('hex')}, ${oldKey.toString('base64')}`,
    });
    expect(config.previousEncryptionKeys).toHaveLength(2);
    expect(createKeyring(config.encryptionKey, config.previousEncryptionKeys).masterKeys).toHaveLength(2);
  });
});
