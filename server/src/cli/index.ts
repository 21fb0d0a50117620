import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { prepareDatabase } from '../db/bootstrap';
import { connectDatabase, type Db } from '../db/client';
import { MIGRATIONS_DIR } from '../db/migrate';
import { createKeyring, type Keyring } from '../lib/crypto';
import { createLogger } from '../lib/logger';
import type { Actor } from '../services/auth/actor';
import { createUserWithOrganization } from '../services/auth/sign-up';
import { createPersonalAccessToken, listPersonalAccessTokens } from '../services/tokens/personal-access-tokens';
import { createWorkspace, listWorkspaces } from '../services/workspaces/workspaces';
// @ts-expect-error plain ESM helper shared with npm scripts
import { runPrisma } from '../../scripts/prisma.mjs';

const USAGE = `Usage: npm run cli -- <command> [options] [--json]

Commands:
  db:migrate                                   apply pending database migrations
  db:migration:create --name <name>            write a new migration from prisma/schema.prisma changes
  user:create --email <e> --password <p> [--name <n>] --org <organization name>
                                               create a user who owns a new organization
  workspace:create --org <organizationId> --name <name>
                                               create a workspace; prints its id and API key
  pat:create --email <e> [--org <organizationId>] --name <name> [--expires-days <n>]
                                               create a personal access token; prints it once
  users:list | workspaces:list --org <id> | pats:list --email <e> [--org <id>]
`;

type Flags = Record<string, string | boolean | undefined>;

interface Tools {
  db: Db;
  keyring: Keyring;
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
  if (!membership) throw new UsageError(email ? `${email} is not a member of organization ${organizationId}` : `organization ${organizationId} not found`);
  return { userId: membership.userId, organizationId, role: membership.role, via: 'cli' };
}

const commands: Record<string, (tools: Tools, flags: Flags) => Promise<unknown>> = {
  async 'user:create'({ db }, flags) {
    const { user, organization } = await createUserWithOrganization(db, {
      email: required(flags, 'email'),
      password: required(flags, 'password'),
      name: typeof flags.name === 'string' ? flags.name : required(flags, 'email').split('@')[0]!,
      organizationName: required(flags, 'org'),
    });
    return { userId: user.id, email: user.email, organizationId: organization.id, organizationName: organization.name };
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
        : (await db.membership.findFirst({ where: { user: { email: email.toLowerCase() } }, orderBy: { createdAt: 'asc' }, select: { organizationId: true } }))
            ?.organizationId;
    if (!organizationId) throw new UsageError(`no user ${email}`);
    const actor = await ownerActor(db, organizationId, email);
    const days = typeof flags['expires-days'] === 'string' ? Number(flags['expires-days']) : undefined;
    if (days !== undefined && !(Number.isInteger(days) && days > 0)) throw new UsageError('--expires-days must be a positive whole number');
    const pat = await createPersonalAccessToken(db, actor, {
      name: required(flags, 'name'),
      expiresAt: days ? new Date(Date.now() + days * 86_400_000) : null,
    });
    return { tokenId: pat.id, name: pat.name, token: pat.token, userId: actor.userId, organizationId, expiresAt: pat.expiresAt };
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
      where: { user: { email: email.toLowerCase() }, ...(typeof flags.org === 'string' ? { organizationId: flags.org } : {}) },
      select: { organizationId: true },
    });
    const lists = await Promise.all(memberships.map(async (m) => listPersonalAccessTokens(db, await ownerActor(db, m.organizationId, email))));
    return lists.flat();
  },
};

function print(result: unknown, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else if (Array.isArray(result)) console.table(result);
  else for (const [key, value] of Object.entries(result as object)) process.stdout.write(`${key}: ${value instanceof Date ? value.toISOString() : value}\n`);
}

async function createMigration(name: string): Promise<unknown> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new UsageError('--name must be lower_snake_case');
  const config = loadConfig();
  const log = createLogger('warn');
  const server = await prepareDatabase(config, log);
  try {
    const result = runPrisma(
      ['migrate', 'diff', '--from-migrations', MIGRATIONS_DIR, '--to-schema-datamodel', 'prisma/schema.prisma', '--script'],
      { DATABASE_URL: server.url },
      true,
    ) as { status: number; stdout: string };
    if (result.status !== 0) throw new Error('prisma migrate diff failed');
    if (!result.stdout.trim() || /empty migration/i.test(result.stdout)) return { created: null, message: 'schema and migrations agree' };
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), result.stdout);
    return { created: path.relative(process.cwd(), dir) };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
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
      'expires-days': { type: 'string' },
    },
  });
  const [command] = positionals;
  const json = values.json === true;
  if (!command || command === 'help' || values.help) {
    process.stdout.write(USAGE);
    return command ? 0 : 64;
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
    print(await handler!({ db: database.prisma, keyring: createKeyring(config.encryptionKey) }, values), json);
    return 0;
  } finally {
    await database.close();
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error instanceof UsageError ? `${error.message}\n\n${USAGE}` : `Error: ${(error as Error).message}\n`}`);
    process.exit(error instanceof UsageError ? 64 : 1);
  },
);
