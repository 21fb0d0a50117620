import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { passwordSchema } from '@shared/schemas/auth';
import { ConfigError, loadConfig, parseKey, type Config } from '../config';
import { prepareDatabase } from '../db/bootstrap';
import { connectDatabase, type Db } from '../db/client';
import { MIGRATIONS_DIR } from '../db/migrate';
import type { Keyring } from '../lib/crypto';
import { createLogger, type Logger } from '../lib/logger';
import { policyFromConfig } from '../lib/ssrf';
import { runReverification } from '../jobs/reverify';
import type { Actor } from '../services/auth/actor';
import { setUserPassword } from '../services/auth/set-password';
import { createUserWithOrganization } from '../services/auth/sign-up';
import { sealAuditChain, verifyAuditChain } from '../services/audit/audit-chain';
import { keyStatus, loadKeyring, rotateMasterKey } from '../services/keys/master-key';
import { createPersonalAccessToken, listPersonalAccessTokens } from '../services/tokens/personal-access-tokens';
import { createWorkspace, listWorkspaces } from '../services/workspaces/workspaces';
import { applyRetention } from '../pipeline/commands/apply-retention';
import { verifyCertificate } from '../services/certificates/verify-certificate';
import { inviteMember } from '../services/members/invite-member';
import { inviteMemberInputSchema } from '@shared/schemas/members';
// @ts-expect-error plain ESM helper shared with npm scripts
import { runPrisma } from '../../scripts/prisma.mjs';

const USAGE = `Usage: npm run cli -- <command> [options] [--json]

Commands:
  db:migrate                                   apply pending database migrations
  db:migration:create --name <name>            write a new migration from prisma/schema.prisma changes since the last commit
  user:create --email <e> --password <p> [--name <n>] --org <organization name>
                                               create a user who owns a new organization
  user:reset-password --email <e> [--password <p>]
                                               set a new password (read from stdin without --password) and sign
                                               the user out everywhere; for a server that cannot mail reset links
  workspace:create --org <organizationId> --name <name>
                                               create a workspace; prints its id and API key
  pat:create --email <e> [--org <organizationId>] --name <name> [--expires-days <n>]
                                               create a personal access token; prints it once
  invite:create --org <organizationId> --email <e> --role <OWNER|ADMIN|MEMBER>
                                               invite someone; prints the one-time link (valid 7 days)
  retention:run [--org <id>]                   apply retention policies now (otherwise daily at midnight UTC)
  reverify:run                                 re-verify the store deletions that are due now (otherwise hourly in workers)
  users:list | workspaces:list --org <id> | pats:list --email <e> [--org <id>]
  keys:status                                  master key id, data keys per master key, secrets still in the old format
  keys:rotate-master [--new-key <base64>]      re-wrap every data key with the new master key (default: ENCRYPTION_KEY,
                                               with the old key in PREVIOUS_ENCRYPTION_KEYS; or NEW_ENCRYPTION_KEY); see SECURITY.md
  audit:seal                                   link new audit entries into each organization's hash chain
  certificate:verify <file> --public-key <file>
                                               verify a certificate of deletion (JSON) offline against the organization's
                                               public key; exit code 2 when it was changed or signed with another key,
                                               3 when no --public-key was given (only the signature was checked)
  audit:verify [--org <id>]                    seal, then verify the audit hash chains; exit code 2 names the first broken link
`;

type Flags = Record<string, string | boolean | undefined>;

interface Tools {
  db: Db;
  keyring: Keyring;
  config: Config;
  log: Logger;
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

/** Acts as the organization's first owner (or the named user), as the CLI's audit actor. */
async function ownerActor(db: Db, organizationId: string, email?: string): Promise<Actor> {
  const membership = await db.membership.findFirst({
    where: { organizationId, ...(email ? { user: { email: email.toLowerCase() } } : { role: 'OWNER' }) },
    orderBy: { createdAt: 'asc' },
    select: { userId: true, role: true },
  });
  if (!membership)
    throw new UsageError(
      email ? `${email} is not a member of organization ${organizationId}` : `organization ${organizationId} not found`,
    );
  return { userId: membership.userId, organizationId, role: membership.role, via: 'cli' };
}

const commands: Record<string, (tools: Tools, flags: Flags) => Promise<unknown>> = {
  async 'keys:status'({ db, keyring }) {
    return keyStatus(db, keyring);
  },
  async 'keys:rotate-master'({ db, keyring }, flags) {
    const raw = typeof flags['new-key'] === 'string' ? flags['new-key'] : process.env.NEW_ENCRYPTION_KEY;
    let newKey: Buffer | undefined;
    if (raw) {
      try {
        newKey = parseKey(raw);
      } catch {
        throw new UsageError('--new-key (or NEW_ENCRYPTION_KEY) must encode exactly 32 bytes, base64 or hex');
      }
    }
    return rotateMasterKey(db, keyring, newKey);
  },
  async 'audit:seal'({ db }) {
    return sealAuditChain(db);
  },
  async 'audit:verify'({ db }, flags) {
    const sealed = await sealAuditChain(db);
    const report = await verifyAuditChain(db, {
      organizationId: typeof flags.org === 'string' ? flags.org : undefined,
    });
    if (!report.ok) {
      process.exitCode = 2;
      for (const b of report.breaks) {
        process.stderr.write(
          `BROKEN: organization ${b.organizationId}, audit entry ${b.entryId} (chain position ${b.chainSeq}): ${b.reason}\n`,
        );
      }
    }
    return {
      ok: report.ok,
      organizations: report.organizations,
      verifiedEntries: report.verifiedEntries,
      droppedEntries: report.droppedEntries,
      sealedNow: sealed.sealed,
      firstBrokenLink: report.breaks[0] ? `${report.breaks[0].organizationId}/${report.breaks[0].entryId}` : 'none',
      ...(flags.json ? { breaks: report.breaks, heads: report.heads } : {}),
    };
  },
  async 'retention:run'({ db }, flags) {
    return applyRetention(db, new Date(), typeof flags.org === 'string' ? flags.org : undefined);
  },
  // The hourly job's run, at once; recording is conditional, so a run alongside a worker's records each result once.
  async 'reverify:run'({ db, keyring, config, log }) {
    return runReverification({ prisma: db, keyring, config, log, policy: policyFromConfig(config) });
  },
  async 'user:create'({ db }, flags) {
    const password = passwordSchema.safeParse(required(flags, 'password'));
    if (!password.success) throw new UsageError(`--password: ${password.error.issues[0]?.message}`);
    const { user, organization } = await createUserWithOrganization(db, {
      email: required(flags, 'email'),
      password: required(flags, 'password'),
      name: typeof flags.name === 'string' ? flags.name : required(flags, 'email').split('@')[0]!,
      organizationName: required(flags, 'org'),
    });
    return { userId: user.id, email: user.email, organizationId: organization.id, organizationName: organization.name };
  },
  async 'user:reset-password'({ db }, flags) {
    const given =
      typeof flags.password === 'string' ? flags.password : fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '');
    const password = passwordSchema.safeParse(given);
    if (!password.success) throw new UsageError(`the new password: ${password.error.issues[0]?.message}`);
    return setUserPassword(db, { email: required(flags, 'email'), password: password.data });
  },
  async 'invite:create'({ db }, flags) {
    const input = inviteMemberInputSchema.safeParse({
      email: required(flags, 'email'),
      role: required(flags, 'role').toUpperCase(),
    });
    if (!input.success)
      throw new UsageError(input.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
    const actor = await ownerActor(db, required(flags, 'org'));
    const invitation = await inviteMember(db, actor, { ...input.data, publicUrl: loadConfig().PUBLIC_URL });
    return { email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt, link: invitation.link };
  },
  async 'workspace:create'({ db, keyring }, flags) {
    const actor = await ownerActor(db, required(flags, 'org'));
    const workspace = await createWorkspace(db, keyring, actor, { name: required(flags, 'name') });
    return { workspaceId: workspace.id, name: workspace.name, apiKey: workspace.apiKey };
  },
  async 'pat:create'({ db }, flags) {
    const email = required(flags, 'email');
    const organizationId =
      typeof flags.org === 'string'
        ? flags.org
        : (
            await db.membership.findFirst({
              where: { user: { email: email.toLowerCase() } },
              orderBy: { createdAt: 'asc' },
              select: { organizationId: true },
            })
          )?.organizationId;
    if (!organizationId) throw new UsageError(`no user ${email}`);
    const actor = await ownerActor(db, organizationId, email);
    const days = typeof flags['expires-days'] === 'string' ? Number(flags['expires-days']) : undefined;
    if (days !== undefined && !(Number.isInteger(days) && days > 0))
      throw new UsageError('--expires-days must be a positive whole number');
    const pat = await createPersonalAccessToken(db, actor, {
      name: required(flags, 'name'),
      expiresAt: days ? new Date(Date.now() + days * 86_400_000) : null,
    });
    return {
      tokenId: pat.id,
      name: pat.name,
      token: pat.token,
      userId: actor.userId,
      organizationId,
      expiresAt: pat.expiresAt,
    };
  },
  async 'users:list'({ db }) {
    return db.user.findMany({
      select: { id: true, email: true, name: true, memberships: { select: { organizationId: true, role: true } } },
      orderBy: { createdAt: 'asc' },
    });
  },
  async 'workspaces:list'({ db }, flags) {
    return listWorkspaces(db, await ownerActor(db, required(flags, 'org')));
  },
  async 'pats:list'({ db }, flags) {
    const email = required(flags, 'email');
    const memberships = await db.membership.findMany({
      where: {
        user: { email: email.toLowerCase() },
        ...(typeof flags.org === 'string' ? { organizationId: flags.org } : {}),
      },
      select: { organizationId: true },
    });
    const lists = await Promise.all(
      memberships.map(async (m) => listPersonalAccessTokens(db, await ownerActor(db, m.organizationId, email))),
    );
    return lists.flat();
  },
};

function print(result: unknown, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else if (Array.isArray(result)) console.table(result);
  else {
    for (const [key, value] of Object.entries(result as object)) {
      const text =
        value instanceof Date
          ? value.toISOString()
          : typeof value === 'object' && value !== null
            ? JSON.stringify(value)
            : value;
      process.stdout.write(`${key}: ${text}\n`);
    }
  }
}

/**
 * The SQL that takes the database from the schema of the last commit (`git show HEAD:`) to the
 * working copy's prisma/schema.prisma, as a new migration. Prisma's own way, a diff from the
 * migrations folder, replays them on a shadow database, and its WASM schema engine (6.19.3)
 * panics there and in introspection; a diff of two schema files needs neither (README, "Layout").
 */
async function createMigration(name: string): Promise<unknown> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new UsageError('--name must be lower_snake_case');
  const git = spawnSync('git', ['show', 'HEAD:prisma/schema.prisma'], {
    cwd: path.resolve(MIGRATIONS_DIR, '../..'),
    encoding: 'utf8',
  });
  if (git.status !== 0)
    throw new Error("the last commit's prisma/schema.prisma cannot be read (git show HEAD:prisma/schema.prisma)");
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-migration-'));
  const committed = path.join(scratch, 'schema.prisma');
  fs.writeFileSync(committed, git.stdout);
  const config = loadConfig();
  const log = createLogger('warn');
  // The schema engine connects through the driver adapter even to compare two files.
  const server = await prepareDatabase(config, log);
  try {
    const result = runPrisma(
      [
        'migrate',
        'diff',
        '--from-schema-datamodel',
        committed,
        '--to-schema-datamodel',
        'prisma/schema.prisma',
        '--script',
      ],
      { DATABASE_URL: server.url },
      true,
    ) as { status: number; stdout: string };
    if (result.status !== 0) throw new Error('prisma migrate diff failed');
    if (!result.stdout.trim() || /empty migration/i.test(result.stdout))
      return { created: null, message: 'prisma/schema.prisma has no change since the last commit' };
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), result.stdout);
    return { created: path.relative(process.cwd(), dir) };
  } finally {
    await server.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The command line's options; an unknown or incomplete one is a usage error (64), with the usage. */
function parseCommandLine() {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean' },
        email: { type: 'string' },
        password: { type: 'string' },
        name: { type: 'string' },
        org: { type: 'string' },
        role: { type: 'string' },
        'expires-days': { type: 'string' },
        'new-key': { type: 'string' },
        'public-key': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(): Promise<number> {
  const { positionals, values } = parseCommandLine();
  const [command] = positionals;
  const json = values.json === true;
  if (!command || command === 'help' || values.help) {
    process.stdout.write(USAGE);
    return command ? 0 : 64;
  }
  if (command === 'certificate:verify') {
    // Offline: no configuration, no database, no network.
    const file = positionals[1];
    if (!file) throw new UsageError('certificate:verify needs the certificate file');
    const trusted =
      typeof values['public-key'] === 'string' ? fs.readFileSync(values['public-key'], 'utf8') : undefined;
    let document: unknown;
    try {
      document = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      throw new UsageError(`${file} is not a JSON certificate: ${(error as Error).message}`);
    }
    const result = verifyCertificate(document, trusted);
    if (result.valid && !result.keyChecked) {
      // The document is unchanged since it was signed, but by whom is not known yet.
      print(
        {
          ...result,
          warning:
            "Only the signature was checked, with the key the certificate carries: pass --public-key with the organization's published key (/api/downloads/certificate-public-key.pem) to know the organization signed it",
        },
        json,
      );
      return 3;
    }
    print(result, json);
    return result.valid ? 0 : 2;
  }
  if (command === 'db:migration:create') {
    print(await createMigration(required(values, 'name')), json);
    return 0;
  }
  const handler = commands[command];
  if (!handler && command !== 'db:migrate') throw new UsageError(`unknown command "${command}"`);
  const config = loadConfig();
  const log = createLogger(json ? 'warn' : 'info');
  const server = await prepareDatabase(config, log);
  if (command === 'db:migrate') {
    await server.stop();
    return 0;
  }
  const database = connectDatabase(server.url, 2);
  try {
    const keyring = await loadKeyring(database.prisma, config);
    print(await handler!({ db: database.prisma, keyring, config, log }, values), json);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } finally {
    await database.close();
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `${error instanceof UsageError ? `${error.message}\n\n${USAGE}` : `Error: ${(error as Error).message}\n`}`,
    );
    // 64: usage (EX_USAGE); 78: configuration (EX_CONFIG), as the service exits; 1: anything else.
    process.exit(error instanceof UsageError ? 64 : error instanceof ConfigError ? 78 : 1);
  },
);
