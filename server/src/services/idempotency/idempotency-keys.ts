import type { Db, Tx } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { sha256Hex } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import type { Actor } from '../auth/actor';

export const IDEMPOTENCY_KEY_MAX = 255;
/** How long an answer is kept for replays. */
const KEEP_MS = 24 * 3_600_000;
/**
 * A first call that has not shown it is alive for this long died with its process: its key may
 * be used again. While its action runs, a call shows it every third of this (a heartbeat on
 * `expiresAt`), so an action that takes minutes (a bulk cancel that calls vendors) is never
 * taken for dead and run a second time.
 */
const ABANDONED_MS = 60_000;

/** The Idempotency-Key header, trimmed; undefined when absent or empty; a 400 when too long. */
export function idempotencyKeyOf(headers: Record<string, string | undefined>): string | undefined {
  const key = headers['idempotency-key']?.trim() || undefined;
  if (key && key.length > IDEMPOTENCY_KEY_MAX)
    throw new AppError('BAD_REQUEST', `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX} characters`);
  return key;
}

/**
 * Stores the answer inside the action's own transaction: the answer commits with what the
 * action did, or neither does. An action that calls it can never be run twice for one key,
 * whenever its process dies.
 */
export type KeepAnswer<T> = (tx: Tx, answer: T) => Promise<void>;

const isUniqueViolation = (error: unknown) =>
  error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';

/**
 * Runs `action` at most once per (organization, user, Idempotency-Key): a replay with the same operation
 * and input answers what the first call answered (`replayed: true`); the same key with
 * another operation or input is a 422, and while the first call is still running a 409.
 * A call that fails keeps nothing, so the key can be sent again. Keys are kept 24 hours.
 * An action that writes only to our database passes its answer to `keep` inside its transaction;
 * for the others, should the process die between the action's commit and the stored answer, a
 * replay after ABANDONED_MS runs the action again (each that must not repeat has its own guard).
 */
export async function runIdempotently<T>(
  db: Db,
  actor: Actor,
  request: { key: string | undefined; operation: string; input: unknown },
  action: (keep: KeepAnswer<NoInfer<T>>) => Promise<T>,
  /** What is kept of an answer and how a replay is rebuilt from it (to keep personal data out of the stored copy). */
  codec: { store: (result: T) => unknown | Promise<unknown>; restore: (stored: unknown) => Promise<T> } = {
    store: (result) => result,
    restore: async (stored) => stored as T,
  },
  { abandonedMs = ABANDONED_MS }: { abandonedMs?: number } = {},
): Promise<{ result: T; replayed: boolean }> {
  // Without a key there is no answer to keep.
  if (!request.key) return { result: await action(async () => undefined), replayed: false };
  const where = {
    organizationId_userId_key: { organizationId: actor.organizationId, userId: actor.userId, key: request.key },
  };
  // A token's limits are part of the request: another token of the same user, limited
  // otherwise, replaying the key gets a 422 rather than an answer it could not get itself.
  const limits = actor.scopes || actor.workspaceIds ? [[actor.scopes ?? null, actor.workspaceIds ?? null]] : [];
  const requestHash = sha256Hex(JSON.stringify([actor.organizationId, request.operation, request.input, ...limits]));
  const now = Date.now();
  for (let attempt = 0; ; attempt++) {
    const earlier = await db.idempotencyKey.findUnique({ where });
    // A running call keeps `expiresAt` KEEP_MS ahead (its heartbeat): one that fell behind by abandonedMs died.
    const stale =
      earlier &&
      (earlier.expiresAt.getTime() <= now ||
        (earlier.response === null && earlier.expiresAt.getTime() <= now + KEEP_MS - abandonedMs));
    if (earlier && !stale) {
      if (earlier.operation !== request.operation || earlier.requestHash !== requestHash) {
        throw new AppError('UNPROCESSABLE_CONTENT', 'This Idempotency-Key was already used with a different request');
      }
      if (earlier.response === null)
        throw new AppError(
          'CONFLICT',
          'A request with this Idempotency-Key is still being processed; retry in a few seconds',
        );
      return { result: await codec.restore(earlier.response), replayed: true };
    }
    try {
      if (stale) {
        // Only the caller that sees the same stale row takes it over.
        const taken = await db.idempotencyKey.updateMany({
          where: {
            organizationId: actor.organizationId,
            userId: actor.userId,
            key: request.key,
            createdAt: earlier!.createdAt,
          },
          data: {
            operation: request.operation,
            requestHash,
            response: Prisma.DbNull,
            createdAt: new Date(now),
            expiresAt: new Date(now + KEEP_MS),
          },
        });
        if (taken.count === 0) continue;
      } else {
        await db.idempotencyKey.create({
          data: {
            organizationId: actor.organizationId,
            userId: actor.userId,
            key: request.key,
            operation: request.operation,
            requestHash,
            createdAt: new Date(now),
            expiresAt: new Date(now + KEEP_MS),
          },
        });
      }
      break;
    } catch (error) {
      // Another call with this key got there first: answer as its replay.
      if (isUniqueViolation(error) && attempt < 3) continue;
      throw error;
    }
  }
  // This call's row (its createdAt): the heartbeat touches it only while it is still this call's and unanswered.
  const ours = {
    organizationId: actor.organizationId,
    userId: actor.userId,
    key: request.key,
    createdAt: new Date(now),
    response: { equals: Prisma.DbNull },
  };
  const heartbeat = setInterval(() => {
    db.idempotencyKey
      .updateMany({ where: ours, data: { expiresAt: new Date(Date.now() + KEEP_MS) } })
      .catch(() => undefined); // the database is away for a moment: the next beat, or a replay's 409, will do
  }, abandonedMs / 3);
  heartbeat.unref();
  let kept = false;
  const keep: KeepAnswer<T> = async (tx, answer) => {
    const stored = (await codec.store(answer)) as Prisma.InputJsonValue;
    await tx.idempotencyKey.updateMany({ where: ours, data: { response: stored } });
    kept = true;
  };
  let result: T;
  try {
    result = await action(keep);
  } catch (error) {
    clearInterval(heartbeat);
    await db.idempotencyKey.deleteMany({
      where: {
        organizationId: actor.organizationId,
        userId: actor.userId,
        key: request.key,
        response: { equals: Prisma.DbNull },
      },
    });
    throw error;
  }
  clearInterval(heartbeat);
  if (!kept)
    await db.idempotencyKey.update({ where, data: { response: (await codec.store(result)) as Prisma.InputJsonValue } });
  return { result, replayed: false };
}

/** Forgets answers older than their 24 hours (worker processes, daily). */
export async function pruneIdempotencyKeys(db: Db, now = new Date()): Promise<number> {
  const { count } = await db.idempotencyKey.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}
