import type { Db } from '../db/client';
import { dbQuery } from '../db/query';
import { AppError, notFound } from '../lib/errors';
import type { Actor } from '../services/auth/actor';
import { recordAudit } from '../services/audit/record-audit';
import { findCallbackEndpoint } from './endpoints';
import { enqueueCallbackEvent } from './store/events';
import { requeueDelivery } from './store/queue';
import { wakeCallbackDispatchers } from '../queue/wake-up';

export const DELIVERY_PAGE = 50;

const deliverySelect = {
  id: true,
  endpointId: true,
  eventType: true,
  deletionRequestId: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  lastStatusCode: true,
  lastError: true,
  lastAttemptAt: true,
  deliveredAt: true,
  createdAt: true,
  body: true,
} as const;

/**
 * A page of the endpoint's deliveries, newest first: the delivery log of the dashboard. The
 * cursor is the last delivery shown; deliveries recorded in the same instant (one event for
 * several endpoints, a burst) are told apart by id, so none is skipped between pages.
 */
export async function listCallbackDeliveries(
  db: Db,
  actor: Actor,
  input: { endpointId: string; cursor?: string | null },
) {
  const endpoint = await findCallbackEndpoint(db, actor, input.endpointId);
  const after = input.cursor
    ? await db.callbackDelivery.findFirst({
        where: { id: input.cursor, endpointId: endpoint.id },
        select: { id: true, createdAt: true },
      })
    : null;
  if (input.cursor && !after) throw notFound('Delivery');
  const rows = await db.callbackDelivery.findMany({
    where: {
      endpointId: endpoint.id,
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: DELIVERY_PAGE + 1,
    select: deliverySelect,
  });
  const page = rows.slice(0, DELIVERY_PAGE);
  return {
    items: page.map((row) => ({
      ...row,
      nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
      lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
      deliveredAt: row.deliveredAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
    })),
    nextCursor: rows.length > DELIVERY_PAGE ? page.at(-1)!.id : null,
  };
}

/**
 * Sends a delivery again, with the same `webhook-id` and body (a receiver that already
 * processed it recognises it); its attempts start again. Not while an attempt is running.
 */
export async function resendCallbackDelivery(db: Db, actor: Actor, deliveryId: string) {
  const delivery = await db.callbackDelivery.findFirst({
    where: { id: deliveryId, organizationId: actor.organizationId },
    select: { id: true, endpointId: true },
  });
  if (!delivery) throw notFound('Delivery');
  await findCallbackEndpoint(db, actor, delivery.endpointId);
  const resent = await db.$transaction(async (tx) => {
    if (!(await requeueDelivery(dbQuery(tx), delivery.id)))
      throw new AppError('CONFLICT', 'This delivery is being sent right now; try again in a moment');
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'callback_delivery.resent',
      summary: `Callback delivery ${delivery.id} queued to be sent again`,
      details: { deliveryId: delivery.id, endpointId: delivery.endpointId },
    });
    return { id: delivery.id, status: 'PENDING' as const };
  });
  wakeCallbackDispatchers(db);
  return resent;
}

/** Queues a `callback.test` event to this one endpoint (also when it is disabled or subscribes to nothing). */
export async function sendTestCallback(db: Db, actor: Actor, endpointId: string) {
  const endpoint = await findCallbackEndpoint(db, actor, endpointId);
  const [id] = await db.$transaction((tx) =>
    enqueueCallbackEvent(dbQuery(tx), {
      organizationId: actor.organizationId,
      workspaceId: endpoint.workspaceId,
      type: 'callback.test',
      endpointId: endpoint.id,
      data: {
        endpointId: endpoint.id,
        message: 'A test event sent from the dashboard; it says nothing about any request.',
      },
    }),
  );
  wakeCallbackDispatchers(db);
  return { id: id! };
}
