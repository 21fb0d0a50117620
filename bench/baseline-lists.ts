/**
 * The baseline's reads: the public list endpoints (keyset on (createdAt, id), integration
 * requests in one query per page) and the dashboard's first page as a server-rendered table.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { registerSecurityHeaders } from '../server/src/http/hardening';
import { hashToken } from '../server/src/lib/tokens';

interface Principal {
  userId: string;
  organizationId: string;
}

export function registerListRoutes(
  app: FastifyInstance,
  pool: pg.Pool,
  authenticate: (header: unknown) => Promise<Principal | null>,
): void {
  const DR_COLUMNS = `id, "organizationId", "workspaceId", identifier, hashed, status, "statusReason", channel, "createdByUserId", "createdAt", "updatedAt", "completedAt"`;
  const IR_COLUMNS = `id, "deletionRequestId", "integrationId", "integrationName", "integrationType", status, attempts, "trackingId", "lastError", "nextAttemptAt", "createdAt", "updatedAt", "completedAt"`;
  const iso = (d: Date | null) => (d ? d.toISOString() : null);

  async function list(
    scopeColumn: 'organizationId' | 'workspaceId' | 'createdByUserId',
    scopeValue: string,
    organizationId: string,
    query: Record<string, string | undefined>,
  ) {
    const limit = Math.min(1000, Math.max(1, Number(query.limit ?? 100)));
    const values: unknown[] = [organizationId, limit + 1];
    let where = `"organizationId" = $1`;
    if (scopeColumn !== 'organizationId') {
      values.push(scopeValue);
      where += ` AND "${scopeColumn}" = $${values.length}`;
    }
    if (query.cursor) {
      const [at, id] = Buffer.from(query.cursor, 'base64url').toString('utf8').split('|');
      values.push(new Date(at!), id);
      where += ` AND ("createdAt", id) < ($${values.length - 1}, $${values.length})`;
    }
    const { rows } = await pool.query(
      `SELECT ${DR_COLUMNS} FROM "DeletionRequest" WHERE ${where} ORDER BY "createdAt" DESC, id DESC LIMIT $2`,
      values,
    );
    const page = rows.slice(0, limit);
    const byRequest = new Map<string, unknown[]>();
    if (query.fetchIntegrationRequests !== 'false' && page.length > 0) {
      const irs = await pool.query(
        `SELECT ${IR_COLUMNS} FROM "IntegrationRequest" WHERE "deletionRequestId" = ANY($1) ORDER BY "createdAt"`,
        [page.map((r) => r.id)],
      );
      for (const ir of irs.rows) {
        const listOf = byRequest.get(ir.deletionRequestId) ?? [];
        listOf.push({
          id: ir.id,
          integrationId: ir.integrationId,
          name: ir.integrationName,
          type: ir.integrationType,
          status: ir.status,
          attempts: ir.attempts,
          trackingId: ir.trackingId,
          lastError: ir.lastError,
          nextAttemptAt: iso(ir.nextAttemptAt),
          createdAt: iso(ir.createdAt),
          updatedAt: iso(ir.updatedAt),
          completedAt: iso(ir.completedAt),
        });
        byRequest.set(ir.deletionRequestId, listOf);
      }
    }
    const hideHashed = query.fetchHashed !== 'false';
    const items = page.map((r) => ({
      id: r.id,
      organizationId: r.organizationId,
      workspaceId: r.workspaceId,
      identifier: r.hashed && hideHashed && r.identifier !== null ? '[hashed]' : r.identifier,
      hashed: r.hashed,
      status: r.status,
      statusReason: r.statusReason,
      channel: r.channel,
      createdByUserId: r.createdByUserId,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      completedAt: iso(r.completedAt),
      ...(query.fetchIntegrationRequests !== 'false' ? { integrationRequests: byRequest.get(r.id) ?? [] } : {}),
    }));
    const last = page[page.length - 1];
    const next =
      rows.length > limit && last
        ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url')
        : null;
    return { items, next };
  }

  app.get('/list/organization', async (request, reply) => {
    const principal = await authenticate(request.headers['x-api-key']);
    if (!principal) return reply.code(401).send({ code: 'UNAUTHORIZED' });
    const { items, next } = await list(
      'organizationId',
      principal.organizationId,
      principal.organizationId,
      request.query as Record<string, string>,
    );
    if (next) reply.header('link', `</list/organization?cursor=${next}>; rel="next"`);
    return items;
  });

  app.get('/list/workspace/:workspaceId', async (request, reply) => {
    const principal = await authenticate(request.headers['x-api-key']);
    if (!principal) return reply.code(401).send({ code: 'UNAUTHORIZED' });
    const { workspaceId } = request.params as { workspaceId: string };
    const ws = await pool.query(`SELECT 1 FROM "Workspace" WHERE id = $1 AND "organizationId" = $2`, [
      workspaceId,
      principal.organizationId,
    ]);
    if (ws.rowCount === 0) return reply.code(404).send({ code: 'NOT_FOUND' });
    const { items, next } = await list(
      'workspaceId',
      workspaceId,
      principal.organizationId,
      request.query as Record<string, string>,
    );
    if (next) reply.header('link', `</list/workspace/${workspaceId}?cursor=${next}>; rel="next"`);
    return items;
  });

  app.get('/list/user/:userId', async (request, reply) => {
    const principal = await authenticate(request.headers['x-api-key']);
    if (!principal) return reply.code(401).send({ code: 'UNAUTHORIZED' });
    const { userId } = request.params as { userId: string };
    const member = await pool.query(`SELECT 1 FROM "Membership" WHERE "userId" = $1 AND "organizationId" = $2`, [
      userId,
      principal.organizationId,
    ]);
    if (member.rowCount === 0) return reply.code(404).send({ code: 'NOT_FOUND' });
    const { items, next } = await list(
      'createdByUserId',
      userId,
      principal.organizationId,
      request.query as Record<string, string>,
    );
    if (next) reply.header('link', `</list/user/${userId}?cursor=${next}>; rel="next"`);
    return items;
  });

  /**
   * The dashboard baseline: the first page of requests as a server-rendered HTML table, sent
   * with the service's own security headers (its hook, on this route only), since some of them
   * (Cross-Origin-Opener-Policy) change how Chromium opens a page.
   */
  app.register(async (page) => {
    registerSecurityHeaders(page, { PUBLIC_URL: 'http://127.0.0.1' });
    page.get('/requests-page', async (request, reply) => {
      const token = /(?:^|;\s*)dds_session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
      const session = token
        ? await pool.query(
            `SELECT s."userId", m."organizationId" FROM "Session" s JOIN "Membership" m ON m."userId" = s."userId" AND m."organizationId" = s."activeOrganizationId"
            WHERE s."tokenHash" = $1 AND s."expiresAt" > now()`,
            [hashToken(token)],
          )
        : null;
      const principal = session?.rows[0];
      if (!principal) return reply.code(401).send({ code: 'UNAUTHORIZED' });
      const { items } = await list('organizationId', principal.organizationId, principal.organizationId, {
        limit: '50',
        fetchIntegrationRequests: 'true',
      });
      const escape = (v: unknown) => String(v ?? '').replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
      const rows = items
        .map(
          (r) =>
            `<tr data-request-id="${escape(r.id)}"><td>${escape(r.identifier)}</td><td>${escape(r.status)}</td><td>${escape(r.createdAt)}</td></tr>`,
        )
        .join('');
      return reply
        .type('text/html')
        .header('Cache-Control', 'no-store')
        .send(`<!doctype html><title>Requests</title><table><tbody>${rows}</tbody></table>`);
    });
  });
}
