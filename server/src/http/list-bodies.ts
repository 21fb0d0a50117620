import type { FastifyInstance } from 'fastify';
import { sendError } from './errors';
import { PUBLIC_API_PREFIX } from './openapi';

/** The three public list paths. */
const LIST_PATH = new RegExp(`^${PUBLIC_API_PREFIX}/deletion-requests/(organization|workspace/[^/]+|user/[^/]+)/?$`);
/** A workspace key with room to spare. */
const LIST_BODY_MAX_BYTES = 4096;
const SHAPE = 'A list request may carry a JSON body of the form {"workspaceApiKey": "<key>"} and nothing else';

/** The request's body as text, or null when it is longer than `max` bytes (the rest is left unread). */
async function readText(stream: AsyncIterable<Buffer>, max: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The interface lets a list call supply its `workspaceApiKey` "in the request body": a GET to one
 * of the three list paths may send `{"workspaceApiKey": "…"}` (JSON whatever its content type, as
 * `curl -X GET -d` sends it), and it counts as the X-Workspace-Api-Key header (it must be valid
 * and narrows the list to its workspace). Fastify reads no GET body, so this hook does; rather than
 * being ignored, a body of any other shape, or a key that disagrees with the header, is a 400.
 */
export function registerListBodies(app: FastifyInstance): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'GET' || !LIST_PATH.test(request.originalUrl.split('?')[0] ?? '')) return;
    const headers = request.headers;
    if ((headers['content-length'] ?? '0') === '0' && headers['transfer-encoding'] === undefined) return;
    const text = await readText(request.raw, LIST_BODY_MAX_BYTES);
    if (text === null) return sendError(reply, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    if (text.trim() === '') return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendError(reply, 'BAD_REQUEST', `Request body is not valid JSON. ${SHAPE}`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendError(reply, 'BAD_REQUEST', SHAPE);
    const { workspaceApiKey, ...rest } = body as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || (workspaceApiKey !== undefined && typeof workspaceApiKey !== 'string'))
      return sendError(reply, 'BAD_REQUEST', SHAPE);
    if (workspaceApiKey === undefined) return;
    const header = headers['x-workspace-api-key'];
    if (header !== undefined && header !== workspaceApiKey)
      return sendError(
        reply,
        'BAD_REQUEST',
        'The body names another workspaceApiKey than the X-Workspace-Api-Key header; send one of them',
      );
    headers['x-workspace-api-key'] = workspaceApiKey;
  });
}
