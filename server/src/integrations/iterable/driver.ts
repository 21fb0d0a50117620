import { iterableBaseUrl, type IterableConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { deletionFailure, statusFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Iterable answers `{msg, code, params}`: `code` is "Success" or an error code such as BadApiKey. */
const style: VendorStyle = {
  vendor: 'Iterable',
  message: (body) => {
    const b = body as { msg?: unknown; code?: unknown } | undefined;
    const msg = str(b?.msg);
    const code = str(b?.code);
    return msg && code ? `${code}: ${msg}` : (msg ?? code);
  },
};

/** Iterable's REST API with a server-side API key in the `Api-Key` header. */
export function iterableClient(http: HttpClient, config: IterableConfig, apiKey: string) {
  const base = `${iterableBaseUrl(config)}/api`;
  const headers = { 'api-key': apiKey, accept: 'application/json' };
  const field = config.identifierType === 'email' ? 'email' : 'userId';
  return {
    /** The user's profile: `{user}`, or `{}` when the project has no such user. */
    lookup: (identifier: string) =>
      http.request({
        method: 'GET',
        url:
          field === 'email'
            ? `${base}/users/${encodeURIComponent(identifier)}`
            : `${base}/users/byUserId/${encodeURIComponent(identifier)}`,
        headers,
      }),
    /** Deletes the user's data and keeps Iterable from collecting more about them (GDPR forget). */
    forget: (identifier: string) =>
      http.request({
        method: 'POST',
        url: `${base}/users/forget`,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ [field]: identifier }),
      }),
  };
}

const clientFor = (ctx: Pick<DriverContext<IterableConfig>, 'http' | 'config' | 'secrets'>) =>
  iterableClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/** Whether a lookup's body holds a user (Iterable answers 200 `{}` for none). */
const hasUser = (body: unknown) => Boolean((body as { user?: unknown } | undefined)?.user);

/** A 200 whose code is not "Success" is refused, in Iterable's words. */
function refused(response: Awaited<ReturnType<ReturnType<typeof iterableClient>['forget']>>): Outcome | null {
  const code = (jsonBody(response) as { code?: unknown } | undefined)?.code;
  return code === 'Success' ? null : { kind: 'failed', reason: `Iterable did not forget the user: ${response.text}` };
}

/**
 * Look the user up, forget them (Iterable deletes their data and blocks the identifier from being
 * collected again, within about ten minutes), then poll the lookup until it has no user: the proof.
 */
export const iterableDriver: Driver<IterableConfig> = {
  type: 'ITERABLE',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'up to ten minutes (Iterable forgets users in the background)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const before = await client.lookup(ctx.identifier);
    if (!isSuccessStatus(before.status)) return deletionFailure(style, before, ctx.now);
    const found = hasUser(jsonBody(before));
    // Forgotten even when there is no such user: the identifier is blocked from being collected later.
    const sent = await client.forget(ctx.identifier);
    if (!isSuccessStatus(sent.status)) return deletionFailure(style, sent, ctx.now);
    const notForgotten = refused(sent);
    if (notForgotten) return notForgotten;
    if (!found)
      return {
        kind: 'success',
        message: `Iterable has no user with this ${ctx.config.identifierType}; it was forgotten anyway, so no data about it is collected again`,
        evidence: { userFound: false, forgotten: true },
      };
    return {
      kind: 'accepted',
      trackingId: 'forget',
      status: 'PROCESSING',
      message: 'Iterable accepted the GDPR forget: it deletes the user and collects no more data about them',
    };
  },

  async checkStatus(ctx) {
    const after = await clientFor(ctx).lookup(ctx.identifier);
    if (!isSuccessStatus(after.status)) return statusFailure(style, after, ctx.now);
    if (hasUser(jsonBody(after)))
      return {
        kind: 'pending',
        status: 'PROCESSING',
        message: 'Iterable still has the user; a forget can take up to ten minutes',
      };
    return {
      kind: 'success',
      message: 'Iterable forgot the user; a lookup now finds no user',
      evidence: {
        forgotten: true,
        verifiedGone: true,
        lookupAfterDelete: `HTTP ${after.status} without a user`,
      },
    };
  },

  // Looks up a user id no one has: a 200 proves the key without touching anyone.
  testConnection: (ctx) =>
    testWith(
      style,
      () =>
        iterableClient(ctx.http, { ...ctx.config, identifierType: 'userId' }, credential(ctx, 'apiKey')).lookup(
          'connection-test',
        ),
      'Iterable accepted the API key',
    ),
};
