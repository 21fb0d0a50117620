import type { CallbackEventType } from '@shared/schemas/callbacks';
import { NOW_UTC, type Query } from '../../db/query';

export interface CallbackEvent {
  organizationId: string;
  /** The workspace the event is about: endpoints of this workspace and organization-wide ones receive it. */
  workspaceId: string | null;
  type: CallbackEventType | 'callback.test';
  deletionRequestId?: string | null;
  /** The event's `data`; never a subject identifier (bodies leave the service). */
  data: Record<string, unknown>;
  /** Only this endpoint, whatever it subscribes to ("Send test event"). */
  endpointId?: string;
}

/**
 * Records an event for every enabled endpoint that subscribed to it, one delivery row each,
 * in the caller's transaction: the event exists exactly when the change it reports was
 * committed. Each row's id is its `webhook-id`, fixed now, so every attempt (also after a
 * crash) carries the same id. The body is fixed now too, and signed as is on each attempt.
 */
export async function enqueueCallbackEvent(query: Query, event: CallbackEvent, now = new Date()): Promise<string[]> {
  const body = JSON.stringify({ type: event.type, timestamp: now.toISOString(), data: event.data });
  const values: unknown[] = [
    event.organizationId,
    event.type,
    event.workspaceId,
    event.deletionRequestId ?? null,
    body,
  ];
  const match = event.endpointId
    ? `e.id = $${values.push(event.endpointId)}::text`
    : `e.enabled AND $2::text = ANY(e.events)`;
  const rows = await query<{ id: string }>(
    `INSERT INTO "CallbackDelivery" (id, "organizationId", "endpointId", "eventType", "deletionRequestId", body, "nextAttemptAt", "createdAt", "updatedAt")
     SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e."organizationId", e.id, $2::text, $4::text, $5::text, ${NOW_UTC}, ${NOW_UTC}, ${NOW_UTC}
       FROM "CallbackEndpoint" e
      WHERE e."organizationId" = $1::text AND (e."workspaceId" IS NULL OR e."workspaceId" = $3::text) AND ${match}
     RETURNING id`,
    values,
  );
  return rows.map((r) => r.id);
}
