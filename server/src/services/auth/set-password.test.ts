import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../lib/passwords';
import { createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { createSession } from './sessions';

/** `npm run cli -- user:reset-password`, run as an operator runs it, against this test's database. */
const encryptionKey = randomBytes(32).toString('base64');
let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
beforeAll(async () => {
  env = await createTestEnv({ ENCRYPTION_KEY: encryptionKey });
  org = await seedOrganization(env.deps, 'reset-password');
});
afterAll(async () => {
  await env?.close();
});

function cli(args: string[], stdin?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/cli/index.ts', ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: env.db.url,
        ENCRYPTION_KEY: encryptionKey,
        LOG_LEVEL: 'silent',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

const storedHash = async () =>
  (await env.deps.prisma.user.findUniqueOrThrow({ where: { id: org.user.id }, select: { passwordHash: true } }))
    .passwordHash;

describe('user:reset-password', () => {
  it('sets the new password, signs the user out everywhere, and prints only the confirmation', async () => {
    await createSession(env.deps.prisma, org.user.id, org.organization.id);
    const password = 'a brand new passphrase';
    const run = await cli([
      'user:reset-password',
      '--email',
      org.email.toUpperCase(),
      '--password',
      password,
      '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ email: org.email, passwordChanged: true, sessionsSignedOut: 1 });
    expect(run.stdout).not.toContain(password);
    expect(run.stdout).not.toContain('scrypt');
    expect(await verifyPassword(password, await storedHash())).toBe(true);
    expect(await env.deps.prisma.session.count({ where: { userId: org.user.id } })).toBe(0);
    const audit = await env.deps.prisma.auditLog.findFirst({
      where: { organizationId: org.organization.id, action: 'user.password_reset' },
    });
    expect(audit?.summary).toBe('Password set from the command line; every session signed out');
  }, 60_000);

  it('reads the password from stdin when --password is not given, so it stays out of the process list', async () => {
    const run = await cli(['user:reset-password', '--email', org.email], 'another long passphrase\n');
    expect(run.status).toBe(0);
    expect(await verifyPassword('another long passphrase', await storedHash())).toBe(true);
  }, 60_000);

  it('refuses a weak password (64, nothing changed) and an unknown email (1, without echoing it)', async () => {
    const before = await storedHash();
    const weak = await cli(['user:reset-password', '--email', org.email, '--password', 'short']);
    expect(weak.status).toBe(64);
    expect(weak.stderr).toContain('the new password');
    const unknown = await cli([
      'user:reset-password',
      '--email',
      'nobody@example.com',
      '--password',
      'a long enough passphrase',
    ]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('No user has this email');
    expect(unknown.stderr).not.toContain('nobody@example.com');
    expect(await storedHash()).toBe(before);
  }, 60_000);
});
