import { BUILT_IN_IDENTIFIER_TYPES } from '@shared/identifiers';
import type { Db } from '../../db/client';
import { AppError, notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

const RESERVED_NAMES = ['identifier', 'workspace', 'regulation', 'receivedat'];

export interface IdentifierTypeDto {
  name: string;
  description: string;
  builtIn: boolean;
}

const BUILT_IN_DESCRIPTIONS: Record<(typeof BUILT_IN_IDENTIFIER_TYPES)[number], string> = {
  email: 'Email address (trimmed; compared without regard to case)',
  phone: 'Phone number in E.164 form (+ country code and number)',
  user_id: "The person's user id in the product",
};

/** The built-in identifier types and the organization's own, by name. */
export async function listIdentifierTypes(db: Db, actor: Actor): Promise<IdentifierTypeDto[]> {
  const own = await db.identifierType.findMany({
    where: { organizationId: actor.organizationId },
    orderBy: { name: 'asc' },
    select: { name: true, description: true },
  });
  return [
    ...BUILT_IN_IDENTIFIER_TYPES.map((name) => ({ name, description: BUILT_IN_DESCRIPTIONS[name], builtIn: true })),
    ...own.map((type) => ({ ...type, builtIn: false })),
  ];
}

export async function createIdentifierType(
  db: Db,
  actor: Actor,
  input: { name: string; description?: string },
): Promise<IdentifierTypeDto> {
  if ((BUILT_IN_IDENTIFIER_TYPES as readonly string[]).includes(input.name))
    throw new AppError('CONFLICT', `"${input.name}" is a built-in identifier type`);
  // The CSV import reads identifier types as columns beside its own.
  if (RESERVED_NAMES.includes(input.name))
    throw new AppError('BAD_REQUEST', `name: "${input.name}" is a column of the CSV import; choose another name`);
  const existing = await db.identifierType.findUnique({
    where: { organizationId_name: { organizationId: actor.organizationId, name: input.name } },
  });
  if (existing) throw new AppError('CONFLICT', `The identifier type "${input.name}" already exists`);
  const description = input.description ?? '';
  await db.$transaction(async (tx) => {
    await tx.identifierType.create({
      data: {
        id: newId(ID_PREFIX.identifierType),
        organizationId: actor.organizationId,
        name: input.name,
        description,
      },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'identifier_type.created',
      summary: `Identifier type "${input.name}" added`,
      details: { name: input.name },
    });
  });
  return { name: input.name, description, builtIn: false };
}

/** Removes one of the organization's own types; one an integration or a lookup still uses is refused, naming it. */
export async function deleteIdentifierType(db: Db, actor: Actor, name: string): Promise<{ name: string }> {
  const type = await db.identifierType.findUnique({
    where: { organizationId_name: { organizationId: actor.organizationId, name } },
  });
  if (!type) throw notFound('Identifier type');
  const user = await db.integration.findFirst({
    where: { consumesType: name, workspace: { organizationId: actor.organizationId } },
    select: { name: true },
  });
  if (user) throw new AppError('CONFLICT', `The integration "${user.name}" consumes identifiers of type "${name}"`);
  await db.$transaction(async (tx) => {
    await tx.identifierType.delete({ where: { id: type.id } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'identifier_type.deleted',
      summary: `Identifier type "${name}" removed`,
      details: { name },
    });
  });
  return { name };
}

/**
 * Which identifier type feeds an integration: its requests receive every value of that type
 * (null: the request's primary identifier, whatever its type). Requests already sent keep theirs.
 */
export async function setIntegrationConsumesType(
  db: Db,
  actor: Actor,
  input: { integrationId: string; consumesType: string | null },
): Promise<{ integrationId: string; consumesType: string | null }> {
  const integration = await db.integration.findFirst({
    where: { id: input.integrationId, workspace: { organizationId: actor.organizationId } },
    select: { id: true, name: true, workspaceId: true },
  });
  if (!integration || (actor.workspaceIds && !actor.workspaceIds.includes(integration.workspaceId)))
    throw notFound('Integration');
  if (input.consumesType !== null) {
    const known = (await listIdentifierTypes(db, actor)).some((type) => type.name === input.consumesType);
    if (!known) throw new AppError('BAD_REQUEST', `consumesType: unknown identifier type "${input.consumesType}"`);
  }
  await db.$transaction(async (tx) => {
    await tx.integration.update({ where: { id: integration.id }, data: { consumesType: input.consumesType } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'integration.identifier_type_changed',
      summary: `Integration "${integration.name}" receives ${input.consumesType === null ? 'the primary identifier' : `identifiers of type ${input.consumesType}`}`,
      details: { integrationId: integration.id, consumesType: input.consumesType },
    });
  });
  return { integrationId: integration.id, consumesType: input.consumesType };
}
