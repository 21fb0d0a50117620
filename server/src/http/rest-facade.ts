import type { FastifyInstance, FastifyReply } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';

/**
 * The REST facade (trpc-to-openapi) in a scope of its own. The adapter hands tRPC Fastify's
 * reply as the response and aborts the call's signal when that response closes before it
 * says it has ended; a Fastify reply does not say so by itself, so every answered call had
 * its signal aborted afterwards (an AbortError built per call). Here the reply says what its
 * socket's response says: a call whose client went away is still aborted, an answered one not.
 */
export async function registerRestFacade(
  app: FastifyInstance,
  /** trpc-to-openapi's Fastify plugin options (router, basePath, createContext, ...). */
  options: object,
): Promise<void> {
  await app.register(async (scope) => {
    scope.decorateReply('writableEnded', {
      getter(this: FastifyReply) {
        return this.raw.writableEnded;
      },
    });
    await scope.register(fastifyTRPCOpenApiPlugin, options as never);
  });
}
